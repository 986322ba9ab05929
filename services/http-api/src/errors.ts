import { toPublicError } from "@deliberate/runtime";
import { DeliberateError, databaseRetryAfterSeconds, type ErrorCode, type FieldIssue } from "@deliberate/base";
import type { ErrorDetail, ErrorResponse, HttpErrorCode } from "@deliberate/contracts";

// The HTTP-only codes and the error body are part of the wire contract (the client is typed from them).
export { errorDetailSchema, errorResponseSchema, httpErrorCodeSchema } from "@deliberate/contracts";
export type { ErrorDetail, ErrorResponse, HttpErrorCode } from "@deliberate/contracts";
export type ApiErrorCode = ErrorCode | HttpErrorCode;

/**
 * The one place error codes become HTTP statuses. Provider failures are the
 * upstream's (502/503/504), a caller's cancellation is 499 (client closed
 * request), an unconfigured model is 503 (the service, not the call, lacks it).
 * STORAGE is 500, except a retryable one (the database is away), which is 503
 * with Retry-After (`toErrorResponse`).
 */
export const httpStatusByCode: Readonly<Record<ApiErrorCode, number>> = {
  INVALID_INPUT: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 422,
  PROVIDER_NOT_CONFIGURED: 503,
  PROVIDER_AUTH: 502,
  PROVIDER_RATE_LIMITED: 503,
  PROVIDER_UNAVAILABLE: 502,
  PROVIDER_TIMEOUT: 504,
  PROVIDER_BAD_REQUEST: 502,
  MODEL_OUTPUT_INVALID: 502,
  CANCELLED: 499,
  STORAGE: 500,
  INTERNAL: 500,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UNSUPPORTED_VERSION: 400,
  REQUEST_TIMEOUT: 504,
};

/** An HTTP-layer failure, with headers the response must carry (WWW-Authenticate, Retry-After). */
export class HttpError extends Error {
  readonly code: HttpErrorCode;
  readonly hint: string | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly retryable: boolean;

  constructor(options: {
    code: HttpErrorCode;
    message: string;
    hint?: string;
    headers?: Record<string, string>;
    retryable?: boolean;
  }) {
    super(options.message);
    this.name = "HttpError";
    this.code = options.code;
    this.hint = options.hint;
    this.headers = options.headers ?? {};
    this.retryable = options.retryable ?? false;
  }
}

/** A new id that ties an error answer to its log line. */
export { newErrorId } from "@deliberate/runtime";

/**
 * The error detail of any thrown value. INTERNAL and STORAGE errors, and
 * anything that is not a DeliberateError or HttpError, get a stable message
 * and an `error_id` instead of their own text; `errorId` is returned so the
 * caller logs the details under it.
 */
export function toErrorDetail(error: unknown): { detail: ErrorDetail; errorId?: string } {
  if (error instanceof HttpError) {
    return {
      detail: {
        code: error.code,
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
        retryable: error.retryable,
      },
    };
  }
  // The same public body as over MCP (toPublicError); the retry delay travels as Retry-After here.
  const { body, errorId } = toPublicError(error);
  const { retry_after_seconds: _retryAfter, ...detail } = body;
  return errorId === undefined ? { detail } : { detail, errorId };
}

/**
 * Status, headers and body of the response for `error` — the one place errors
 * become HTTP answers. `unexpected` is set when the details stayed out of the
 * answer: log them with `unexpected.errorId`.
 */
export function toErrorResponse(
  error: unknown,
  requestId?: string,
): {
  status: number;
  headers: Record<string, string>;
  body: ErrorResponse;
  unexpected?: { errorId: string; error: unknown };
} {
  const { detail, errorId } = toErrorDetail(error);
  const headers: Record<string, string> = error instanceof HttpError ? { ...error.headers } : {};
  const unavailable = detail.code === "STORAGE" && detail.retryable;
  if (unavailable) headers["Retry-After"] = String(databaseRetryAfterSeconds);
  return {
    // A database that is away makes the service unavailable (503), not broken (500).
    status: unavailable ? 503 : (httpStatusByCode[detail.code as ApiErrorCode] ?? 500),
    headers,
    body: { status: "error", error: detail, ...(requestId ? { request_id: requestId } : {}) },
    ...(errorId !== undefined ? { unexpected: { errorId, error } } : {}),
  };
}

/** INVALID_INPUT for one field. */
export function invalidField(field: string, message: string, hint?: string): DeliberateError {
  const issues: FieldIssue[] = [{ field, message }];
  return new DeliberateError({
    code: "INVALID_INPUT",
    message: `Invalid input: ${field}: ${message}`,
    issues,
    ...(hint ? { hint } : {}),
  });
}
