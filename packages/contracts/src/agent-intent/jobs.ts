import { z } from "zod";
import { errorDetailSchema } from "../errors.ts";
import { lazySchema } from "../lazy-schema.ts";

/** What `POST /agent_intent_async` answers: the job was stored and will be decided in the background. */
export const jobAcceptedSchema = lazySchema(() =>
  z
    .object({
      status: z.literal("accepted"),
      job_id: z.string(),
      correlation_id: z.string().nullable(),
    })
    .meta({ title: "JobAccepted" }),
);
export type JobAccepted = z.infer<typeof jobAcceptedSchema>;

/** `POST /agent_intent_cancel`: by correlation id (every job with it) or one job by id. */
export const cancelRequestSchema = lazySchema(() =>
  z
    .object({
      correlation_id: z
        .string()
        .min(1)
        .nullish()
        .describe("Cancel every queued or running job with this correlation id"),
      job_id: z.string().min(1).nullish().describe("Or cancel one job by id"),
    })
    .meta({ title: "CancelRequest" }),
);
export type CancelRequest = z.infer<typeof cancelRequestSchema>;

export const cancelResponseSchema = lazySchema(() =>
  z
    .object({
      ok: z.boolean().describe("True when at least one job was canceled"),
      canceled: z.array(z.string()).describe("Ids of the jobs canceled"),
      error: z.string().optional().describe("Why nothing was canceled"),
    })
    .meta({ title: "CancelResponse" }),
);
export type CancelResponse = z.infer<typeof cancelResponseSchema>;

export const jobStatusSchema = lazySchema(() => z.enum(["queued", "processing", "done", "failed", "canceled"]));
export type JobStatus = z.infer<typeof jobStatusSchema>;

/** `GET /v1/jobs/{job_id}`: a queued decision, with its result or error once finished. */
export const jobViewSchema = lazySchema(() =>
  z
    .object({
      job_id: z.string(),
      type: z.string(),
      status: jobStatusSchema,
      correlation_id: z.string().nullable(),
      session_id: z.string().nullable(),
      attempts: z.number().int(),
      created_at: z.string(),
      updated_at: z.string(),
      started_at: z.string().nullable(),
      finished_at: z.string().nullable(),
      result: z.record(z.string(), z.unknown()).nullable().describe("The AgentIntentResponse when done"),
      error: errorDetailSchema.nullable().describe("Why it failed"),
      callback: z
        .object({
          url: z.string(),
          status: z.enum(["none", "pending", "delivered", "failed"]),
          attempts: z.number().int(),
          last_error: z.string().nullable(),
        })
        .nullable(),
    })
    .meta({ title: "Job" }),
);
export type JobView = z.infer<typeof jobViewSchema>;
