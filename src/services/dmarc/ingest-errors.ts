// How ingestion refuses a report: a 422 whose `errors.body` names the reason code (the email handler
// quotes it in its reject reason). No I/O.
import { ApiError } from "../../lib/errors";

export const refused = (code: string, message: string) => new ApiError(422, "validation_failed", message, { body: [code] });
