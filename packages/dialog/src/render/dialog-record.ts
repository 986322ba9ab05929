import type { DialogExchangeRecord, DialogIterationRecord, DialogSession, DialogSummaryRecord } from "../store/dialog-session.repository.ts";

/** A dialog session with everything recorded in it (for results, exports, resources). */
export interface DialogSessionRecord {
  session: DialogSession;
  iterations: DialogIterationRecord[];
  exchanges: DialogExchangeRecord[];
  summaries: DialogSummaryRecord[];
}

/** Tokens of the whole record: every turn and every summary. */
export function totalTokens(record: DialogSessionRecord): number {
  const turns = record.exchanges.reduce((total, exchange) => total + exchange.tokens.input + exchange.tokens.output, 0);
  const summaries = record.summaries.reduce((total, summary) => total + summary.tokens.input + summary.tokens.output, 0);
  return turns + summaries;
}

/** The agents that took a turn, in the session's agent order. */
export function agentsUsed(record: DialogSessionRecord): string[] {
  const spoke = new Set(record.exchanges.map((exchange) => exchange.agent));
  return record.session.agents.map((agent) => agent.name).filter((name) => spoke.has(name));
}
