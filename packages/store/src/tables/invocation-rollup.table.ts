import type { Selectable } from "kysely";

/**
 * Totals of one (tool, operation, provider, outcome, error code) group of
 * invocations, kept in step with the rows. Key columns hold '' for "none".
 * Counters may come back as bigint or numeric strings on some drivers.
 */
export interface InvocationRollupTable {
  tool: string;
  operation: string;
  provider: string;
  /** 1 or 0. */
  success: number;
  error_code: string;
  calls: number | bigint | string;
  latency_ms_total: number;
  model_calls: number | bigint | string;
  input_tokens: number | bigint | string;
  output_tokens: number | bigint | string;
}
export type InvocationRollupRow = Selectable<InvocationRollupTable>;
