// The one error model: services throw ApiError; the app's onError turns it into {message, code[, errors]}.
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ErrorCode =
  | "bad_request"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "domain_not_verified"
  | "payload_too_large"
  | "unsupported_media_type"
  | "validation_failed"
  | "rate_limited"
  | "quota_exceeded"
  | "dependency_unavailable"
  | "internal_error";

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toBody(): { message: string; code: ErrorCode; errors?: FieldErrors } {
    return this.errors ? { message: this.message, code: this.code, errors: this.errors } : { message: this.message, code: this.code };
  }
}

export const badRequest = (message: string) => new ApiError(400, "bad_request", message);
export const unauthenticated = () => new ApiError(401, "unauthenticated", "Missing or invalid API token.");
export const forbidden = (message = "This token may not perform this operation.") => new ApiError(403, "forbidden", message);
export const notFound = (what = "Resource") => new ApiError(404, "not_found", `${what} not found.`);
export const conflict = (message: string, code: ErrorCode = "conflict") => new ApiError(409, code, message);
export const payloadTooLarge = (message: string) => new ApiError(413, "payload_too_large", message);
export const unsupportedMediaType = () =>
  new ApiError(415, "unsupported_media_type", "Send the request body as application/json.");
export const validationFailed = (errors: FieldErrors, message = "The request is invalid.") =>
  new ApiError(422, "validation_failed", message, errors);
export const dependencyUnavailable = (message = "No DNS resolver could be reached; try again shortly.") =>
  new ApiError(503, "dependency_unavailable", message);
