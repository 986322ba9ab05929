import {
  lazySchema,
  cotVariationSchema,
  outputFormatSchema,
  reasoningTypeSchema,
  traceStepSchema,
} from "@deliberate/contracts";
import { z } from "zod";

/** A plan step as kept between calls. */
export const storedPlanStepSchema = lazySchema(() =>
  z.object({
    kind: z.enum(["induce", "deduce", "abduce", "toolCall", "askUser"]),
    purpose: z.string(),
    toolName: z.string().nullable(),
    toolArguments: z.record(z.string(), z.unknown()).nullable(),
    question: z.string().nullable(),
    status: z.enum(["pending", "done", "waiting", "not_reached"]),
  }),
);
export type StoredPlanStep = z.infer<typeof storedPlanStepSchema>;

export const storedSubQuestionSchema = lazySchema(() =>
  z.object({
    question: z.string(),
    source: z.enum(["graph", "tool", "user"]),
    toolName: z.string().nullable(),
    toolArguments: z.record(z.string(), z.unknown()).nullable(),
    answer: z.string().nullable(),
  }),
);
export type StoredSubQuestion = z.infer<typeof storedSubQuestionSchema>;

/** Where a pending task continues once the host answers. */
export const resumePointSchema = lazySchema(() =>
  z.object({
    taskId: z.string(),
    goal: z.string(),
    reasoningType: reasoningTypeSchema,
    cotVariation: z.object({ requested: z.string().nullable(), used: cotVariationSchema }),
    format: outputFormatSchema,
    stage: z.discriminatedUnion("stage", [
      z.object({ stage: z.literal("plan"), steps: z.array(storedPlanStepSchema), next: z.number().int() }),
      z.object({
        stage: z.literal("selfAsk"),
        subQuestions: z.array(storedSubQuestionSchema),
        waiting: z.number().int(),
      }),
    ]),
    findings: z.array(z.string()),
    trace: z.array(traceStepSchema),
    /** Entity keys the task's earlier calls added or relied on (for the final trace's subgraph). */
    relevant: z.array(z.string()).default([]),
  }),
);
export type ResumePoint = z.infer<typeof resumePointSchema>;

/** What a pending session waits for (stored with the session). */
export const pendingWorkSchema = lazySchema(() =>
  z.discriminatedUnion("kind", [
    z.object({
      kind: z.literal("tool"),
      toolCallId: z.string(),
      toolName: z.string(),
      toolArguments: z.record(z.string(), z.unknown()),
      resume: resumePointSchema,
    }),
    z.object({ kind: z.literal("user"), question: z.string(), resume: resumePointSchema }),
  ]),
);
export type PendingWork = z.infer<typeof pendingWorkSchema>;
