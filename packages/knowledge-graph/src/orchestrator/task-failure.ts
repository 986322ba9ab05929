import { DeliberateError, type ErrorCode, type ExecuteTaskError } from "@deliberate/contracts";
import { isRejectedAnswer } from "@deliberate/engine";

/**
 * Numeric codes of a `failed` status: the reasoning failed (nothing to reason
 * over), or the model or its provider failed during the task. Caller mistakes
 * (bad input, a closed or foreign session) stay errors of the call.
 */
export const executeTaskFailures = {
  EXTRACTION_EMPTY: 4220,
  MODEL_OUTPUT_INVALID: 5020,
  PROVIDER_AUTH: 5021,
  PROVIDER_BAD_REQUEST: 5022,
  PROVIDER_UNAVAILABLE: 5023,
  PROVIDER_NOT_CONFIGURED: 5030,
  PROVIDER_RATE_LIMITED: 5031,
  PROVIDER_TIMEOUT: 5040,
} as const;

export type ExecuteTaskFailureReason = keyof typeof executeTaskFailures;

const modelFailureCodes: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "MODEL_OUTPUT_INVALID",
  "PROVIDER_AUTH",
  "PROVIDER_BAD_REQUEST",
  "PROVIDER_UNAVAILABLE",
  "PROVIDER_NOT_CONFIGURED",
  "PROVIDER_RATE_LIMITED",
  "PROVIDER_TIMEOUT",
]);

/**
 * The `error` of a failed task when `error` is a model or provider failure
 * (after the provider's own retries), else null: everything else (cancellation,
 * storage, a host-executed answer the engine rejects, host execution itself)
 * keeps its own path.
 */
export function modelFailureOf(error: unknown): ExecuteTaskError | null {
  if (!DeliberateError.isInstance(error) || isRejectedAnswer(error) || !modelFailureCodes.has(error.code)) return null;
  const reason = error.code as ExecuteTaskFailureReason;
  return {
    code: executeTaskFailures[reason],
    reason,
    message: `The model failed during the task: ${error.message}`,
    details: error.hint ?? null,
    retryable: error.retryable,
  };
}
