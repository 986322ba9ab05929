import { databaseRetryAfterSeconds, isTransientDatabaseFault } from "./transient-fault.ts";

/** Stable error codes shared by every surface (MCP, HTTP, client). */
export const errorCodes = [
  "INVALID_INPUT",
  "NOT_FOUND",
  "CONFLICT",
  "LIMIT_EXCEEDED",
  "PROVIDER_NOT_CONFIGURED",
  "PROVIDER_AUTH",
  "PROVIDER_RATE_LIMITED",
  "PROVIDER_UNAVAILABLE",
  "PROVIDER_TIMEOUT",
  "PROVIDER_BAD_REQUEST",
  "MODEL_OUTPUT_INVALID",
  "CANCELLED",
  "STORAGE",
  "INTERNAL",
] as const;
export type ErrorCode = (typeof errorCodes)[number];

/** The JSON body every surface returns for an error. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  issues?: FieldIssue[];
  hint?: string;
  retryable: boolean;
}

/** One problem with one input field: where it is and how to fix it. */
export interface FieldIssue {
  /** Dotted path to the field, e.g. `branch_id` or `criteria.0.weight`. */
  field: string;
  message: string;
}

export interface DeliberateErrorOptions {
  code: ErrorCode;
  message: string;
  /** Field-level problems for INVALID_INPUT. */
  issues?: FieldIssue[];
  /** What the caller can do about it, in one sentence. */
  hint?: string;
  cause?: unknown;
  /** Whether retrying the same call later may succeed. */
  retryable?: boolean;
}

const marker = Symbol.for("deliberate.error");

/**
 * The one error type of Deliberate. Every failure a caller can see carries a
 * stable `code`; services map codes to MCP and HTTP responses in one place.
 */
export class DeliberateError extends Error {
  readonly [marker] = true;
  readonly code: ErrorCode;
  readonly issues: FieldIssue[];
  readonly hint: string | undefined;
  readonly retryable: boolean;

  constructor(options: DeliberateErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DeliberateError";
    this.code = options.code;
    this.issues = options.issues ?? [];
    this.hint = options.hint;
    this.retryable = options.retryable ?? false;
  }

  /** Works across package copies, unlike `instanceof`. */
  static isInstance(value: unknown): value is DeliberateError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /** The JSON body every surface returns for this error. */
  toJSON(): ErrorBody {
    return {
      code: this.code,
      message: this.message,
      ...(this.issues.length > 0 ? { issues: this.issues } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      retryable: this.retryable,
    };
  }
}

/**
 * Any thrown value as a DeliberateError: DeliberateErrors pass through; a database that is
 * unreachable or busy (`isTransientDatabaseFault`) becomes STORAGE, retryable; anything
 * else becomes INTERNAL with a stable message (the original stays as `cause`, for logs only).
 */
export function toDeliberateError(error: unknown): DeliberateError {
  if (DeliberateError.isInstance(error)) return error;
  if (isTransientDatabaseFault(error)) return databaseUnavailable(error);
  return new DeliberateError({
    code: "INTERNAL",
    message: "The server failed unexpectedly while handling the call; the details are in its log.",
    hint: "Try again; if it keeps failing, report it with the server log.",
    cause: error,
  });
}

/** The error a call gets while the database is unavailable: STORAGE, retryable, the fault kept as `cause` (for logs). */
export function databaseUnavailable(cause: unknown): DeliberateError {
  return new DeliberateError({
    code: "STORAGE",
    message: "The database is unavailable for the moment (unreachable, restarting or busy); the call did not complete.",
    hint: `Retry in ${databaseRetryAfterSeconds} seconds or more; the service recovers by itself once the database answers again.`,
    retryable: true,
    cause,
  });
}
