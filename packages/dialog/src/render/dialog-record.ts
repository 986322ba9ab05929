import type {
  DialogExchangeRecord,
  DialogIterationRecord,
  DialogSession,
  DialogSummaryRecord,
} from "../store/repositories/dialog-session.repository.ts";

/** A dialog session with everything recorded in it (for results, exports, resources); `exchanges` may be one page of them. */
export interface DialogSessionRecord {
  session: DialogSession;
  iterations: DialogIterationRecord[];
  exchanges: DialogExchangeRecord[];
  summaries: DialogSummaryRecord[];
}

/** The agents that took a turn, in the session's agent order. */
export function agentsUsed(session: DialogSession, speakers: readonly string[]): string[] {
  const spoke = new Set(speakers);
  return session.agents.map((agent) => agent.name).filter((name) => spoke.has(name));
}

/**
 * The part of a record one page of exchanges belongs to: those exchanges, the iterations they
 * are from, and the summaries made in those iterations (what a paged transcript shows).
 */
export function recordOfPage(record: DialogSessionRecord, page: DialogExchangeRecord[]): DialogSessionRecord {
  const iterations = new Set(page.map((exchange) => exchange.iteration));
  return {
    session: record.session,
    iterations: record.iterations.filter((iteration) => iterations.has(iteration.iteration)),
    exchanges: page,
    summaries: record.summaries.filter((summary) => iterations.has(summary.made_in_iteration)),
  };
}
