import { z } from "zod";
import { reasoningSessionIdSchema, sessionStateSchema } from "./execute-task.ts";
import { lazySchema } from "../lazy-schema.ts";

/** The `reasoning/endSession` request: which session to free. */
export const endSessionRequestSchema = lazySchema(() =>
  z
    .strictObject({
      reasoningSessionId: reasoningSessionIdSchema.nullish(),
      sessionState: sessionStateSchema.nullish(),
    })
    .superRefine((request, context) => {
      if (request.reasoningSessionId == null && request.sessionState == null) {
        context.addIssue({
          code: "custom",
          path: ["reasoningSessionId"],
          message: "name the session: reasoningSessionId (or sessionState)",
        });
      }
    }),
);
export type EndSessionRequest = z.infer<typeof endSessionRequestSchema>;

/** What endSession reports: the session is no longer resumable; its graph is kept, read-only, for exports. */
export const endSessionResponseSchema = lazySchema(() =>
  z.object({
    reasoningSessionId: z.string(),
    status: z.enum(["ended", "expired"]),
    alreadyClosed: z.boolean().describe("True when the session had already ended or expired before this call"),
    endedAt: z.string(),
    entities: z.number().int(),
    relations: z.number().int(),
  }),
);
export type EndSessionResponse = z.infer<typeof endSessionResponseSchema>;
