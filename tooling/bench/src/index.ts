export { formatComparison, quantile, summarize } from "./statistics.ts";
export type { Summary } from "./statistics.ts";
