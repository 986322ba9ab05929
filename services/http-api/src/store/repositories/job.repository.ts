import { DeliberateError } from "@deliberate/contracts";
import { type Database, dialectOf } from "@deliberate/store";
import type { ExpressionBuilder } from "kysely";
import type { ApiTables, DatabaseExecutor } from "../tables.ts";
import type { JobRow, JobUpdate } from "../tables/job.table.ts";

/** Where a job is in its life: queued -> processing -> done | failed; canceled from queued or processing. */
export type JobStatus = "queued" | "processing" | "done" | "failed" | "canceled";
/** Delivery of a finished job's result to its callback URL. */
export type CallbackStatus = "none" | "pending" | "delivered" | "failed";

export const jobStatuses: readonly JobStatus[] = ["queued", "processing", "done", "failed", "canceled"];

/** A job of the durable queue (`reasoning_queue`), JSON columns parsed. */
export interface Job {
  id: string;
  type: string;
  status: JobStatus;
  correlation_id: string | null;
  session_id: string | null;
  payload: unknown;
  result: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  callback_url: string | null;
  callback_status: CallbackStatus;
  callback_attempts: number;
  callback_error: string | null;
  attempts: number;
  max_attempts: number;
  owner: string | null;
  pinned: boolean;
  lease_expires_at: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface NewJob {
  id: string;
  type: string;
  correlation_id?: string | null;
  session_id?: string | null;
  /** Stored as JSON: never put secrets here. */
  payload: unknown;
  callback_url?: string | null;
  max_attempts: number;
  /**
   * Pins the job to `owner` (the accepting process), for jobs that need a
   * secret held only in that process's memory. `lease_until` must be set;
   * the owner renews it, and the job fails when the lease runs out.
   */
  pinned?: { owner: string; lease_until: string };
  /** With a correlation id: the job's idempotency key and request digest (see `enqueueOnce`). */
  idempotency?: { key: string; digest: string };
  now: string;
}

/** What `enqueueOnce` did: a new job, or the job already holding the key (`same_request` tells a retry from a conflict). */
export type EnqueueOutcome = { created: true; job: Job } | { created: false; job: Job; same_request: boolean };

/** How a lost job is failed when its lease expires and it cannot be retried. */
export interface RecoveryMessages {
  /** Error body for a pinned job whose process is gone (its secret went with it). */
  pinnedLost: Record<string, unknown>;
  /** Error body for a job that used up its attempts on lost workers. */
  attemptsExhausted: Record<string, unknown>;
}

function parseJson<T>(text: string | null, where: string): T | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new DeliberateError({ code: "STORAGE", message: `Corrupt JSON in ${where}` });
  }
}

function toJob(fullRow: JobRow): Job {
  const { idempotency_key: _key, request_digest: _digest, ...row } = fullRow;
  return {
    ...row,
    status: row.status as JobStatus,
    callback_status: row.callback_status as CallbackStatus,
    payload: parseJson<unknown>(row.payload, `job ${row.id} payload`),
    result: parseJson<Record<string, unknown>>(row.result, `job ${row.id} result`),
    error: parseJson<Record<string, unknown>>(row.error, `job ${row.id} error`),
    pinned: row.pinned === 1,
  };
}

function updated(result: { numUpdatedRows: bigint }): number {
  return Number(result.numUpdatedRows);
}

/**
 * The durable job queue. Every state change is one conditional UPDATE, so
 * several workers (or replicas sharing the database) never take the same job
 * and a finished or canceled job is never overwritten by a stale worker.
 * Workers renew the leases of what they hold (heartbeat); a job whose holder
 * died is taken back by `recoverExpired` once its lease lapses.
 */
export function createJobRepository(db: DatabaseExecutor) {
  async function find(id: string): Promise<Job | undefined> {
    const row = await db.selectFrom("reasoning_queue").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toJob(row) : undefined;
  }

  const postgres = dialectOf(db) === "postgres";

  function rowOf(job: NewJob): JobRow {
    return {
      id: job.id,
      type: job.type,
      status: "queued",
      correlation_id: job.correlation_id ?? null,
      session_id: job.session_id ?? null,
      payload: JSON.stringify(job.payload ?? null),
      result: null,
      error: null,
      callback_url: job.callback_url ?? null,
      callback_status: "none",
      callback_attempts: 0,
      callback_error: null,
      attempts: 0,
      max_attempts: job.max_attempts,
      owner: job.pinned?.owner ?? null,
      pinned: job.pinned ? 1 : 0,
      lease_expires_at: job.pinned?.lease_until ?? null,
      created_at: job.now,
      updated_at: job.now,
      started_at: null,
      finished_at: null,
      idempotency_key: job.idempotency?.key ?? null,
      request_digest: job.idempotency?.digest ?? null,
    };
  }

  return {
    async enqueue(job: NewJob): Promise<Job> {
      const row = rowOf(job);
      await db.insertInto("reasoning_queue").values(row).execute();
      return toJob(row);
    },

    /**
     * Enqueues unless a job already holds `job.idempotency.key`: one
     * INSERT ... ON CONFLICT DO NOTHING on the unique key (so two racing
     * requests make one job, on SQLite and Postgres), then the holder is read
     * back and its digest compared with this request's.
     */
    async enqueueOnce(job: NewJob & { idempotency: { key: string; digest: string } }): Promise<EnqueueOutcome> {
      const row = rowOf(job);
      const inserted = await db
        .insertInto("reasoning_queue")
        .values(row)
        .onConflict((conflict) => conflict.column("idempotency_key").doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { created: true, job: toJob(row) };
      const holder = await db
        .selectFrom("reasoning_queue")
        .selectAll()
        .where("idempotency_key", "=", job.idempotency.key)
        .executeTakeFirstOrThrow();
      return { created: false, job: toJob(holder), same_request: holder.request_digest === job.idempotency.digest };
    },

    find,

    /** Like find, but a missing job is NOT_FOUND naming the id. */
    async get(id: string): Promise<Job> {
      const job = await find(id);
      if (!job) {
        throw new DeliberateError({
          code: "NOT_FOUND",
          message: `Job not found: ${id}`,
          issues: [{ field: "job_id", message: `no job with id '${id}'` }],
          hint: "Use the job_id returned by the call that accepted the job.",
        });
      }
      return job;
    },

    /**
     * Claims the oldest queued job this owner may run (unpinned, or pinned to
     * it): status -> processing with a lease. One statement: on Postgres the
     * candidate is picked `FOR UPDATE SKIP LOCKED`, so concurrent claimers on
     * any number of replicas each take a different job without waiting on each
     * other; SQLite runs one writer at a time.
     */
    async claimNext(input: { owner: string; now: string; leaseUntil: string }): Promise<Job | undefined> {
      const row = await db
        .updateTable("reasoning_queue")
        .set((eb) => ({
          status: "processing",
          owner: input.owner,
          lease_expires_at: input.leaseUntil,
          attempts: eb("attempts", "+", 1),
          started_at: input.now,
          updated_at: input.now,
        }))
        .where("id", "=", (eb) =>
          eb
            .selectFrom("reasoning_queue")
            .select("id")
            .where("status", "=", "queued")
            .where((inner) => inner.or([inner("pinned", "=", 0), inner("owner", "=", input.owner)]))
            .orderBy("created_at")
            .orderBy("id")
            .limit(1)
            .$if(postgres, (query) => query.forUpdate().skipLocked()),
        )
        .where("status", "=", "queued")
        .returningAll()
        .executeTakeFirst();
      return row ? toJob(row) : undefined;
    },

    /**
     * Extends the leases this owner holds (processing jobs, queued jobs pinned
     * to it, callbacks it is delivering). Returns the ids of the given
     * processing jobs it still holds: a missing id was canceled or taken over.
     */
    async renewLeases(input: {
      owner: string;
      now: string;
      leaseUntil: string;
      processing: readonly string[];
      delivering?: readonly string[];
    }): Promise<string[]> {
      // Only what this process is actually working on keeps its lease: a job or a
      // callback whose local work died must lapse so another worker takes it over.
      const delivering = input.delivering ?? [];
      await db
        .updateTable("reasoning_queue")
        .set({ lease_expires_at: input.leaseUntil })
        .where("owner", "=", input.owner)
        .where((eb) =>
          eb.or([
            ...(input.processing.length > 0
              ? [eb.and([eb("status", "=", "processing"), eb("id", "in", [...input.processing])])]
              : []),
            eb.and([eb("status", "=", "queued"), eb("pinned", "=", 1)]),
            ...(delivering.length > 0
              ? [eb.and([eb("callback_status", "=", "pending"), eb("id", "in", [...delivering])])]
              : []),
          ]),
        )
        .execute();
      if (input.processing.length === 0) return [];
      const held = await db
        .selectFrom("reasoning_queue")
        .select("id")
        .where("id", "in", [...input.processing])
        .where("status", "=", "processing")
        .where("owner", "=", input.owner)
        .execute();
      return held.map((row) => row.id);
    },

    /**
     * Records the outcome of a processing job held by `owner`. Returns false
     * (and changes nothing) when the job was canceled or taken over meanwhile.
     * With a callback URL the callback becomes pending, still leased to `owner`.
     */
    async finish(input: {
      id: string;
      owner: string;
      now: string;
      leaseUntil: string;
      outcome:
        | { status: "done"; result: Record<string, unknown> }
        | { status: "failed"; error: Record<string, unknown> };
    }): Promise<boolean> {
      const changes: JobUpdate = {
        status: input.outcome.status,
        result: input.outcome.status === "done" ? JSON.stringify(input.outcome.result) : null,
        error: input.outcome.status === "failed" ? JSON.stringify(input.outcome.error) : null,
        lease_expires_at: input.leaseUntil,
        finished_at: input.now,
        updated_at: input.now,
      };
      const result = await db
        .updateTable("reasoning_queue")
        .set((eb) => ({
          ...changes,
          callback_status: eb.case().when("callback_url", "is not", null).then("pending").else("none").end(),
        }))
        .where("id", "=", input.id)
        .where("owner", "=", input.owner)
        .where("status", "=", "processing")
        .executeTakeFirst();
      return updated(result) === 1;
    },

    /** Puts a processing job held by `owner` back in the queue (graceful shutdown); the attempt is not counted. */
    async release(input: { id: string; owner: string; now: string }): Promise<boolean> {
      const result = await db
        .updateTable("reasoning_queue")
        .set((eb) => ({
          status: "queued",
          owner: eb.case().when("pinned", "=", 1).then(input.owner).else(null).end(),
          lease_expires_at: eb.case().when("pinned", "=", 1).then(eb.ref("lease_expires_at")).else(null).end(),
          attempts: eb("attempts", "-", 1),
          started_at: null,
          updated_at: input.now,
        }))
        .where("id", "=", input.id)
        .where("owner", "=", input.owner)
        .where("status", "=", "processing")
        .executeTakeFirst();
      return updated(result) === 1;
    },

    /**
     * Cancels queued and processing jobs by correlation id and/or job id.
     * Returns the ids canceled; a running job's worker notices and aborts.
     */
    async cancel(input: { correlationId?: string; id?: string; now: string }): Promise<string[]> {
      if (input.correlationId === undefined && input.id === undefined) return [];
      let query = db.selectFrom("reasoning_queue").select("id").where("status", "in", ["queued", "processing"]);
      if (input.correlationId !== undefined) query = query.where("correlation_id", "=", input.correlationId);
      if (input.id !== undefined) query = query.where("id", "=", input.id);
      const ids = (await query.execute()).map((row) => row.id);
      const canceled: string[] = [];
      for (const id of ids) {
        const result = await db
          .updateTable("reasoning_queue")
          .set({
            status: "canceled",
            callback_status: "none",
            lease_expires_at: null,
            finished_at: input.now,
            updated_at: input.now,
          })
          .where("id", "=", id)
          .where("status", "in", ["queued", "processing"])
          .executeTakeFirst();
        if (updated(result) === 1) canceled.push(id);
      }
      return canceled;
    },

    /**
     * Takes back jobs whose lease ran out (their process died): unpinned
     * processing jobs go back to the queue while attempts remain; pinned jobs
     * and exhausted ones fail with the given error bodies (callback pending).
     */
    async recoverExpired(input: {
      now: string;
      messages: RecoveryMessages;
    }): Promise<{ requeued: string[]; failed: string[] }> {
      const expired = await db
        .selectFrom("reasoning_queue")
        .select(["id", "status", "pinned", "attempts", "max_attempts"])
        .where("lease_expires_at", "<", input.now)
        .where((eb) =>
          eb.or([eb("status", "=", "processing"), eb.and([eb("status", "=", "queued"), eb("pinned", "=", 1)])]),
        )
        .execute();
      const requeued: string[] = [];
      const failed: string[] = [];
      for (const job of expired) {
        const retry = job.pinned === 0 && job.attempts < job.max_attempts;
        const error = job.pinned === 1 ? input.messages.pinnedLost : input.messages.attemptsExhausted;
        const result = await db
          .updateTable("reasoning_queue")
          .set((eb) =>
            retry
              ? { status: "queued", owner: null, lease_expires_at: null, updated_at: input.now }
              : {
                  status: "failed",
                  error: JSON.stringify(error),
                  owner: null,
                  lease_expires_at: null,
                  finished_at: input.now,
                  updated_at: input.now,
                  callback_status: eb.case().when("callback_url", "is not", null).then("pending").else("none").end(),
                },
          )
          .where("id", "=", job.id)
          .where("status", "=", job.status)
          .where("lease_expires_at", "<", input.now)
          .executeTakeFirst();
        if (updated(result) === 1) (retry ? requeued : failed).push(job.id);
      }
      return { requeued, failed };
    },

    /**
     * Claims a finished job whose callback is pending and not leased (e.g. its
     * worker died mid-delivery). One statement, `SKIP LOCKED` on Postgres.
     */
    async claimCallback(input: { owner: string; now: string; leaseUntil: string }): Promise<Job | undefined> {
      const unleased = (eb: ExpressionBuilder<ApiTables & Database, "reasoning_queue">) =>
        eb.or([eb("lease_expires_at", "is", null), eb("lease_expires_at", "<", input.now)]);
      const row = await db
        .updateTable("reasoning_queue")
        .set({ owner: input.owner, lease_expires_at: input.leaseUntil, updated_at: input.now })
        .where("id", "=", (eb) =>
          eb
            .selectFrom("reasoning_queue")
            .select("id")
            .where("callback_status", "=", "pending")
            .where("status", "in", ["done", "failed"])
            .where(unleased)
            .orderBy("finished_at")
            .orderBy("id")
            .limit(1)
            .$if(postgres, (query) => query.forUpdate().skipLocked()),
        )
        .where("callback_status", "=", "pending")
        .where(unleased)
        .returningAll()
        .executeTakeFirst();
      return row ? toJob(row) : undefined;
    },

    /** Records one callback delivery attempt by the owner; `delivered` / `failed` end the delivery. */
    async recordCallback(input: {
      id: string;
      owner: string;
      now: string;
      status: "pending" | "delivered" | "failed";
      attempts: number;
      error: string | null;
      /** With `pending`: give up the lease so any worker may continue the delivery (e.g. at shutdown). */
      releaseLease?: boolean;
    }): Promise<void> {
      await db
        .updateTable("reasoning_queue")
        .set({
          callback_status: input.status,
          callback_attempts: input.attempts,
          callback_error: input.error,
          updated_at: input.now,
          ...(input.status === "pending" && input.releaseLease !== true ? {} : { lease_expires_at: null }),
        })
        .where("id", "=", input.id)
        .where("owner", "=", input.owner)
        .where("callback_status", "=", "pending")
        .execute();
    },

    /** How many jobs are in each status. */
    async countByStatus(): Promise<Record<JobStatus, number>> {
      const rows = await db
        .selectFrom("reasoning_queue")
        .select((eb) => ["status", eb.fn.countAll<number>().as("count")])
        .groupBy("status")
        .execute();
      const counts: Record<JobStatus, number> = { queued: 0, processing: 0, done: 0, failed: 0, canceled: 0 };
      for (const row of rows) {
        if ((jobStatuses as readonly string[]).includes(row.status))
          counts[row.status as JobStatus] = Number(row.count);
      }
      return counts;
    },

    /** Jobs, newest first. */
    async list(filter: { correlationId?: string; status?: JobStatus; limit?: number } = {}): Promise<Job[]> {
      let query = db.selectFrom("reasoning_queue").selectAll();
      if (filter.correlationId !== undefined) query = query.where("correlation_id", "=", filter.correlationId);
      if (filter.status !== undefined) query = query.where("status", "=", filter.status);
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit ?? 100)
        .execute();
      return rows.map(toJob);
    },
  };
}
export type JobRepository = ReturnType<typeof createJobRepository>;
