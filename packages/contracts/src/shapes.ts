import { z } from "zod";
import { lazySchema } from "./lazy-schema.ts";

/** A reasoning session: the unit of continuity across tool calls. */
export const sessionSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    mode: z.string().describe("Mode that created the session"),
    active_branch_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
);
export type Session = z.infer<typeof sessionSchema>;

export const thoughtStatusSchema = lazySchema(() => z.enum(["active", "superseded"]));

/** One recorded step of reasoning in a session. */
export const thoughtSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    session_id: z.string(),
    branch_id: z.string().nullable(),
    parent_id: z.string().nullable(),
    mode: z.string(),
    content: z.string(),
    confidence: z.number().nullable(),
    status: thoughtStatusSchema,
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.string(),
  }),
);
export type Thought = z.infer<typeof thoughtSchema>;

export const branchStatusSchema = lazySchema(() => z.enum(["active", "completed", "abandoned"]));
export type BranchStatus = z.infer<typeof branchStatusSchema>;

/** One row per tool call: what metrics and self-improvement read. */
export const invocationSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    tool: z.string(),
    operation: z.string().nullable(),
    session_id: z.string().nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
    cache_read_tokens: z.number().int(),
    cache_write_tokens: z.number().int(),
    model_calls: z.number().int(),
    latency_ms: z.number(),
    success: z.boolean(),
    error_code: z.string().nullable(),
    quality: z.number().nullable(),
    created_at: z.string(),
  }),
);
export type Invocation = z.infer<typeof invocationSchema>;

/** `GET /healthz` (and `/health`): the service is up. */
export const healthSchema = lazySchema(() => z.object({ status: z.literal("ok") }).meta({ title: "Health" }));
export type Health = z.infer<typeof healthSchema>;

/**
 * `GET /readyz`: whether the service can serve calls now — its database answers (200, `ready`) or not (503,
 * `unavailable`, with Retry-After). Liveness (`/healthz`) stays 200 meanwhile: the process is fine and
 * recovers by itself, so an orchestrator should stop routing to it, not restart it.
 */
export const readinessSchema = lazySchema(() =>
  z
    .object({
      status: z.enum(["ready", "unavailable"]),
      checks: z.object({
        database: z.enum(["ok", "unavailable"]).describe("Whether the database answered `select 1` within 2 s"),
      }),
    })
    .meta({ title: "Readiness" }),
);
export type Readiness = z.infer<typeof readinessSchema>;
