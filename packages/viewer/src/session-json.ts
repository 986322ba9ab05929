import { createHash } from "node:crypto";
import { defaultSessionPageSize, maxSessionPageSize, pageSessionRecord } from "@deliberate/contracts";
import type { ViewerDataSource } from "./viewer-data.ts";
import { integerParameter } from "./viewer-query.ts";
import { json } from "./viewer-responses.ts";

/** A session as the viewer's JSON endpoint and live stream read it. */
export interface SessionReader {
  /** The session's current version (a fingerprint of its data when the source keeps no version). */
  versionOf(sessionId: string): Promise<{ version: string }>;
  /**
   * One page of a session: every list of the record (thoughts, graph nodes…)
   * and the invocations cut to `?offset&limit` (100 by default, at most 1000),
   * as every other surface pages sessions; `page.next_offset` is the next page.
   */
  sessionJson(sessionId: string, url: URL): Promise<Response>;
}

/** Reads sessions from the viewer's data source. */
export function createSessionReader(source: ViewerDataSource): SessionReader {
  async function readAll(sessionId: string) {
    const [record, invocations] = await Promise.all([source.readSession(sessionId), source.listInvocations(sessionId)]);
    return { record, invocations };
  }

  return {
    async versionOf(sessionId) {
      if (source.sessionVersion) return { version: `v-${await source.sessionVersion(sessionId)}` };
      return { version: fingerprintOf(await readAll(sessionId)) };
    },
    async sessionJson(sessionId, url) {
      const limit = integerParameter(url, "limit", defaultSessionPageSize, maxSessionPageSize);
      if (limit instanceof Response) return limit;
      const offset = integerParameter(url, "offset", 0, Number.MAX_SAFE_INTEGER);
      if (offset instanceof Response) return offset;
      const data = await readAll(sessionId);
      const version = source.sessionVersion ? `v-${await source.sessionVersion(sessionId)}` : fingerprintOf(data);
      const { page, ...record } = pageSessionRecord(data.record, { offset, limit: Math.max(1, limit) });
      const { invocations, page: invocationPage } = pageSessionRecord(
        { invocations: data.invocations },
        { offset, limit: Math.max(1, limit) },
      );
      const totals = { ...page.totals, ...invocationPage.totals };
      const next = page.next_offset ?? invocationPage.next_offset;
      return json({ record, invocations, version, page: { ...page, totals, next_offset: next } });
    },
  };
}

function fingerprintOf(data: unknown): string {
  return createHash("sha256").update(JSON.stringify(data)).digest("hex").slice(0, 24);
}
