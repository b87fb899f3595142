// The one error model: services throw ApiError; every face turns it into the one envelope that
// errorBody() builds ({message, code, request_id?, errors?}).

export const ERROR_CODES = [
  "bad_request",
  "unauthenticated",
  "forbidden",
  "not_found",
  "conflict",
  "domain_not_verified",
  "payload_too_large",
  "unsupported_media_type",
  "validation_failed",
  "rate_limited",
  "quota_exceeded",
  "dependency_unavailable",
  "internal_error",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** HTTP statuses an ApiError may carry (every 4xx/5xx the service documents). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 503;

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldErrors,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toBody(requestId?: string): ErrorEnvelope {
    return errorBody(this.code, this.message, requestId, this.errors);
  }
}

export interface ErrorEnvelope {
  message: string;
  code: ErrorCode;
  request_id?: string;
  errors?: FieldErrors;
}

/** The only place the error envelope is built; routes, middleware, handlers and ingestion all come here. */
export function errorBody(code: ErrorCode, message: string, requestId?: string, errors?: FieldErrors): ErrorEnvelope {
  return { message, code, ...(requestId ? { request_id: requestId } : {}), ...(errors ? { errors } : {}) };
}

/** The generic 500: no exception text ever reaches the client (it goes to the log with the request id). */
export const internalError = () => new ApiError(500, "internal_error", "Internal error.");

export const badRequest = (message: string) => new ApiError(400, "bad_request", message);
export const unauthenticated = () => new ApiError(401, "unauthenticated", "Missing or invalid API token.");
export const forbidden = (message = "This token may not perform this operation.") => new ApiError(403, "forbidden", message);
export const notFound = (what = "Resource") => new ApiError(404, "not_found", `${what} not found.`);
export const conflict = (message: string, code: ErrorCode = "conflict") => new ApiError(409, code, message);
export const payloadTooLarge = (message: string) => new ApiError(413, "payload_too_large", message);
export const unsupportedMediaType = () => new ApiError(415, "unsupported_media_type", "Send the request body as application/json.");
export const validationFailed = (errors: FieldErrors, message = "The request is invalid.") => new ApiError(422, "validation_failed", message, errors);
export const dependencyUnavailable = (message = "No DNS resolver could be reached; try again shortly.") => new ApiError(503, "dependency_unavailable", message);
