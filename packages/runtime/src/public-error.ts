import { randomUUID } from "node:crypto";
import {
  DeliberateError,
  databaseRetryAfterSeconds,
  type ErrorBody,
  type ErrorCode,
  toDeliberateError,
} from "@deliberate/base";

/** The body a caller sees for a failure: `error_id` is set when the details stayed in the server log. */
export type PublicErrorBody = ErrorBody & { error_id?: string; retry_after_seconds?: number };

/** Codes whose messages describe the server's insides (stack overflows, SQL, schema dumps): never shown to callers. */
const privateCodes: ReadonlySet<ErrorCode> = new Set(["INTERNAL", "STORAGE"]);

/** A new id that ties an error answer to its log line. */
export function newErrorId(): string {
  return `err_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/**
 * The public body of any thrown value, the same over MCP and REST. A DeliberateError of a public code is
 * shown as it is (code, message, issues naming fields, hint, retryable). INTERNAL and STORAGE failures, and
 * anything that is not a DeliberateError, get a stable message carrying an `error_id` (returned as
 * `errorId`: log the details under it); a retryable STORAGE failure (the database is away) says when to retry.
 */
export function toPublicError(error: unknown): { body: PublicErrorBody; errorId?: string } {
  const deliberate = toDeliberateError(error);
  if (DeliberateError.isInstance(error) && !privateCodes.has(deliberate.code)) return { body: deliberate.toJSON() };
  const errorId = newErrorId();
  return { body: privateErrorBody(deliberate.code, errorId, deliberate.retryable), errorId };
}

/** The stable public body of a failure whose details must stay in the log. */
export function privateErrorBody(code: ErrorCode, errorId: string, retryable: boolean): PublicErrorBody {
  const storage = code === "STORAGE";
  if (storage && retryable) {
    // The database is away (restart, fail-over, busy): the call may pass later (REST adds Retry-After).
    return {
      code,
      message: `The database is unavailable for the moment (error ${errorId}); the call did not complete.`,
      hint: `Retry after ${databaseRetryAfterSeconds} seconds; the server recovers by itself once its database answers again.`,
      retryable: true,
      retry_after_seconds: databaseRetryAfterSeconds,
      error_id: errorId,
    };
  }
  return {
    code,
    message: storage
      ? `The server could not read or write its database (error ${errorId}); the details are in its log.`
      : `The server failed unexpectedly while handling the call (error ${errorId}); the details are in its log.`,
    hint: retryable
      ? "Try again shortly; if it keeps failing, report the error id with the server log."
      : "Report the error id with the server log; retrying the same call will likely fail again.",
    retryable,
    error_id: errorId,
  };
}
