import type { NewInvocation } from "../repositories/invocation.repository.ts";

let sequence = 0;

/**
 * An invocation row for the store's tests: a successful model-free `reasoning_linear` call with a fresh id
 * (`inv_<n>`), 1 ms of latency, and `fields` over it.
 */
export function invocationRow(fields: Partial<NewInvocation> = {}): NewInvocation {
  sequence += 1;
  return {
    id: `inv_${sequence}`,
    tool: "reasoning_linear",
    operation: null,
    session_id: null,
    provider: null,
    model: null,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    model_calls: 0,
    latency_ms: 1,
    success: true,
    error_code: null,
    error_message: null,
    quality: null,
    created_at: "2026-11-27T10:00:00.000Z",
    ...fields,
  };
}
