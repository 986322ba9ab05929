import type { Insertable, Selectable, Updateable } from "kysely";

/**
 * `reasoning_queue`: durable background jobs (e.g. async agent intents).
 * Claimed atomically by workers with a conditional UPDATE; a lease lets a
 * job held by a crashed process be taken over.
 */
export interface JobTable {
  id: string;
  /** What the job computes, e.g. `agent_intent`. */
  type: string;
  /** queued | processing | done | failed | canceled */
  status: string;
  correlation_id: string | null;
  session_id: string | null;
  /** JSON: the job's input, secrets removed. */
  payload: string;
  /** JSON: the result when done. */
  result: string | null;
  /** JSON: the error body when failed. */
  error: string | null;
  callback_url: string | null;
  /** none | pending | delivered | failed */
  callback_status: string;
  callback_attempts: number;
  callback_error: string | null;
  /** Processing attempts so far (a lost worker's attempt counts). */
  attempts: number;
  max_attempts: number;
  /** The process holding the job's lease, or the one it is pinned to. */
  owner: string | null;
  /** 1 when the job needs secrets only `owner` holds in memory (never stored). */
  pinned: number;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** `<type>:<correlation_id>` for jobs enqueued with a correlation id (unique); null otherwise and on older rows. */
  idempotency_key: string | null;
  /** SHA-256 of the request (canonical JSON, secrets removed), to tell a retry from a different request under the same key. */
  request_digest: string | null;
}
export type JobRow = Selectable<JobTable>;
export type NewJobRow = Insertable<JobTable>;
export type JobUpdate = Updateable<JobTable>;
