import { DeliberateError, type ErrorCode } from "@deliberate/base";

/** The shape of an SDK API error (both SDKs share it). */
export interface SdkApiError extends Error {
  status?: number | undefined;
  headers?: { get(name: string): string | null } | undefined;
  error?: unknown;
}

type ErrorClass<E extends Error = Error> = abstract new (...args: never[]) => E;

/**
 * An SDK's error classes. Passed in by the model that loaded the SDK, so this
 * module imports no SDK and the SDKs load only when a provider is first used.
 */
export interface SdkErrorClasses {
  base: ErrorClass;
  api: ErrorClass<SdkApiError>;
  connection: ErrorClass;
  timeout: ErrorClass;
  abort: ErrorClass;
}

/** Which provider failed, where it was reached, and which strings must never appear in a message. */
export interface ProviderErrorContext {
  provider: "anthropic" | "openai";
  baseURL: string;
  /** API keys and other secrets: redacted from every message. */
  secrets: ReadonlyArray<string | undefined>;
  /** The provider SDK's error classes (see SdkErrorClasses). */
  errors: SdkErrorClasses;
}

/**
 * The one place SDK failures become DeliberateErrors: 401/403 -> PROVIDER_AUTH,
 * 429 -> PROVIDER_RATE_LIMITED, 5xx and connection failures ->
 * PROVIDER_UNAVAILABLE, timeouts -> PROVIDER_TIMEOUT, other 4xx ->
 * PROVIDER_BAD_REQUEST, abort -> CANCELLED. The SDK error stays the `cause`;
 * the provider's own message is kept, with secrets redacted.
 */
export function toProviderError(error: unknown, context: ProviderErrorContext): DeliberateError {
  if (DeliberateError.isInstance(error)) return error;
  const errors = context.errors;
  const label = context.provider === "anthropic" ? "Anthropic" : `The OpenAI-compatible server at ${context.baseURL}`;
  const make = (code: ErrorCode, message: string, hint: string, retryable: boolean): DeliberateError =>
    new DeliberateError({ code, message: redact(message, context.secrets), hint, retryable, cause: error });

  if (error instanceof errors.abort || isAbortError(error)) {
    return make("CANCELLED", `The call to ${label} was cancelled.`, "Nothing to fix: the caller cancelled it.", false);
  }
  if (error instanceof errors.timeout) {
    return make(
      "PROVIDER_TIMEOUT",
      `${label} did not answer in time (request timed out after the SDK's retries).`,
      "Raise REQUEST_TIMEOUT_MS or the mode's timeout, or ask for a shorter answer.",
      true,
    );
  }
  if (error instanceof errors.connection) {
    const cause = describeCause(error);
    return make(
      "PROVIDER_UNAVAILABLE",
      `Could not reach ${label} at ${context.baseURL}${cause ? ` (${cause})` : ""}.`,
      "Check the network and the base URL; the call may succeed later.",
      true,
    );
  }
  if (error instanceof errors.api) {
    if (error.status === undefined || error.status === 0) return fromStreamError(error, label, make);
    const status = error.status;
    const detail = `${label} answered ${status}: ${providerMessage(error)}`;
    if (status === 401 || status === 403) {
      const variable = context.provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
      return make(
        "PROVIDER_AUTH",
        detail,
        `Check ${variable}: the key is missing, wrong, or lacks access to this model.`,
        false,
      );
    }
    if (status === 429) {
      const wait = error.headers?.get("retry-after");
      return make(
        "PROVIDER_RATE_LIMITED",
        detail,
        wait
          ? `Rate limited after the SDK's retries; the provider asks to wait ${wait}s.`
          : "Rate limited after the SDK's retries; try again later.",
        true,
      );
    }
    if (status === 408) {
      return make("PROVIDER_TIMEOUT", detail, "Try again, or ask for a shorter answer.", true);
    }
    if (status >= 500) {
      return make("PROVIDER_UNAVAILABLE", detail, "The provider failed or is overloaded; try again later.", true);
    }
    const hint =
      status === 404
        ? "Check the model id and the base URL (an OpenAI-compatible base URL usually ends in /v1)."
        : "The provider rejected the request; check the model id and the call's settings.";
    return make("PROVIDER_BAD_REQUEST", detail, hint, false);
  }
  if (error instanceof errors.base) {
    return make(
      "PROVIDER_BAD_REQUEST",
      `${label} client rejected the call: ${error.message}`,
      "Check the call's settings.",
      false,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return make("INTERNAL", `Unexpected failure calling ${label}: ${message}`, "This is a bug; please report it.", false);
}

/**
 * An error event inside a stream that had started well (HTTP 200): there is
 * no status, so the error's type decides (Anthropic `overloaded_error`,
 * OpenAI `server_error`, ...). The SDKs do not retry these.
 */
function fromStreamError(
  error: SdkApiError,
  label: string,
  make: (code: ErrorCode, message: string, hint: string, retryable: boolean) => DeliberateError,
): DeliberateError {
  const body = error.error as
    | { type?: unknown; code?: unknown; error?: { type?: unknown; code?: unknown } }
    | undefined;
  const type = String(body?.error?.type ?? body?.type ?? body?.code ?? body?.error?.code ?? "");
  const detail = `${label} failed while streaming the answer (${type || "error"}): ${providerMessage(error)}`;
  if (/overloaded|api_error|server_error|internal/i.test(type)) {
    return make("PROVIDER_UNAVAILABLE", detail, "The provider failed or is overloaded; try again later.", true);
  }
  if (/rate_limit/i.test(type)) return make("PROVIDER_RATE_LIMITED", detail, "Rate limited; try again later.", true);
  if (/timeout/i.test(type)) return make("PROVIDER_TIMEOUT", detail, "Try again, or ask for a shorter answer.", true);
  if (/authentication|permission|invalid_api_key/i.test(type)) {
    return make("PROVIDER_AUTH", detail, "Check the API key: it is wrong or lacks access to this model.", false);
  }
  return make(
    "PROVIDER_BAD_REQUEST",
    detail,
    "The provider rejected the request while answering; check the call's settings.",
    false,
  );
}

/** The provider's own explanation: `error.message` from the response body when present. */
function providerMessage(error: SdkApiError): string {
  const body = error.error as { message?: unknown; error?: { message?: unknown } } | undefined;
  const fromBody = body?.error?.message ?? body?.message;
  if (typeof fromBody === "string" && fromBody.length > 0) return fromBody;
  return error.message.replace(/^\d{3}\s+/, "");
}

function describeCause(error: Error): string {
  let cause: unknown = error.cause;
  const parts: string[] = [];
  for (let depth = 0; depth < 3 && cause instanceof Error; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    parts.push(typeof code === "string" ? code : cause.message);
    cause = cause.cause;
  }
  return parts.at(-1) ?? "";
}

function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === "AbortError";
}

function redact(message: string, secrets: ReadonlyArray<string | undefined>): string {
  let result = message;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) result = result.split(secret).join("[redacted]");
  }
  return result;
}
