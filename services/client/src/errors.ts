import type { ErrorCode, FieldIssue, HttpErrorCode, NeedsCompletion } from "@deliberate/contracts";

/**
 * Failures the client itself detects (no server sent them): the server could
 * not be reached, did not answer in time, answered something that is not the
 * contract, lacks a capability, or returned a decision the host did not offer.
 */
export const clientOnlyErrorCodes = [
  /** The server could not be reached (network error, refused connection, closed MCP connection). */
  "CONNECTION_FAILED",
  /** The MCP handshake or the capability discovery failed. */
  "HANDSHAKE_FAILED",
  /** The server does not offer what the call needs (a tool, a method, the `reasoning` capability, a reasoning type). */
  "CAPABILITY_MISSING",
  /** No answer within the call's timeout. */
  "TIMEOUT",
  /** The caller's signal aborted the call. */
  "ABORTED",
  /** The answer is not JSON, or does not match the contract's schema. */
  "MALFORMED_RESPONSE",
  /** A returned tool was not offered, or its arguments fail the offered tool's schema. */
  "INTENT_VALIDATION",
  /** The tool returned `needs_completion` and no `complete` function was given (the step is on the error). */
  "COMPLETION_REQUIRED",
  /** The host's `complete` function failed, or the completion rounds ran out. */
  "COMPLETION_FAILED",
  /** A client option or `REASONING_API_*` variable has a bad value. */
  "CONFIGURATION",
] as const;
export type ClientOnlyErrorCode = (typeof clientOnlyErrorCodes)[number];

/** Every code a client call can fail with: the engine's, the HTTP surface's and the client's own. */
export type ClientErrorCode = ErrorCode | HttpErrorCode | ClientOnlyErrorCode;

export interface DeliberateClientErrorOptions {
  code: ClientErrorCode;
  message: string;
  issues?: FieldIssue[];
  hint?: string;
  /** Whether the same call may succeed later. */
  retryable?: boolean;
  /** HTTP status, when the error came from an HTTP response. */
  status?: number;
  /** The server's request id, when it sent one. */
  requestId?: string;
  /** The suspended step, for COMPLETION_REQUIRED. */
  needsCompletion?: NeedsCompletion;
  cause?: unknown;
}

const marker = Symbol.for("deliberate.client.error");

/**
 * The one error type of the client. `code` is stable: the server's code when
 * the server answered with an error (INVALID_INPUT naming each field in
 * `issues`, NOT_FOUND, RATE_LIMITED, ...), else the client's own
 * ({@link clientOnlyErrorCodes}). Narrow with {@link isClientError}.
 */
export class DeliberateClientError<Code extends ClientErrorCode = ClientErrorCode> extends Error {
  readonly [marker] = true;
  readonly code: Code;
  readonly issues: FieldIssue[];
  readonly hint: string | undefined;
  readonly retryable: boolean;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly needsCompletion: NeedsCompletion | undefined;

  constructor(options: DeliberateClientErrorOptions & { code: Code }) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DeliberateClientError";
    this.code = options.code;
    this.issues = options.issues ?? [];
    this.hint = options.hint;
    this.retryable = options.retryable ?? false;
    this.status = options.status;
    this.requestId = options.requestId;
    this.needsCompletion = options.needsCompletion;
  }

  /** Works across package copies, unlike `instanceof`. */
  static isInstance(value: unknown): value is DeliberateClientError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /** The error as the services' JSON error body (plus the client's fields). */
  toJSON(): {
    code: Code;
    message: string;
    issues?: FieldIssue[];
    hint?: string;
    retryable: boolean;
    status?: number;
    requestId?: string;
  } {
    return {
      code: this.code,
      message: this.message,
      ...(this.issues.length > 0 ? { issues: this.issues } : {}),
      ...(this.hint ? { hint: this.hint } : {}),
      retryable: this.retryable,
      ...(this.status !== undefined ? { status: this.status } : {}),
      ...(this.requestId !== undefined ? { requestId: this.requestId } : {}),
    };
  }
}

/**
 * Whether `value` is a client error, optionally with one of `codes`; narrows the code.
 *
 * ```ts
 * if (isClientError(error, "INVALID_INPUT")) console.log(error.issues);
 * ```
 */
export function isClientError<Code extends ClientErrorCode>(
  value: unknown,
  ...codes: Code[]
): value is DeliberateClientError<Code> {
  return (
    DeliberateClientError.isInstance(value) && (codes.length === 0 || (codes as ClientErrorCode[]).includes(value.code))
  );
}

/** A client error for anything thrown: client errors pass through; an abort is ABORTED; the rest CONNECTION_FAILED. */
export function toClientError(error: unknown, what: string): DeliberateClientError {
  if (DeliberateClientError.isInstance(error)) return error;
  if (isAbortError(error))
    return new DeliberateClientError({ code: "ABORTED", message: `${what} was aborted.`, cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  return new DeliberateClientError({
    code: "CONNECTION_FAILED",
    message: `${what} failed: ${detail}`,
    retryable: true,
    cause: error,
  });
}

/** Whether `error` is an abort (DOMException AbortError, or an Error named so). */
export function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}
