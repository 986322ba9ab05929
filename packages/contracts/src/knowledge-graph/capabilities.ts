import { z } from "zod";
import { confidenceMethodSchema, cotVariationSchema, outputFormatSchema, reasoningTypeSchema } from "./vocabulary.ts";
import { lazySchema } from "../lazy-schema.ts";

/**
 * The `reasoning` capability object (spec §1.2.1), advertised under
 * `experimental.reasoning` at initialize and at `GET /v1/reasoning/capabilities`.
 * The server generates it from what it implements.
 */
export const reasoningCapabilitySchema = lazySchema(() =>
  z.object({
    version: z.string(),
    serverName: z.string(),
    supportedReasoningTypes: z.array(reasoningTypeSchema),
    supportedCoTVariations: z.array(cotVariationSchema),
    supportedPlanExecutionFeatures: z.object({
      maxPlanDepth: z.number().int(),
      allowsToolIntegrationViaHost: z.boolean(),
      allowsUserInputViaHost: z.boolean(),
    }),
    confidenceScoring: z.object({
      supportedMethods: z.array(confidenceMethodSchema),
      defaultMethod: confidenceMethodSchema,
      returnsScore: z.boolean(),
      formula: z.string(),
    }),
    outputFormatsSupported: z.array(outputFormatSchema),
    methods: z.array(z.string()).describe("Custom JSON-RPC methods"),
    tools: z.array(z.string()).describe("The same operations as tools, for hosts that can only call tools"),
    limits: z.object({
      maxIterations: z.number().int(),
      maxModelCalls: z.number().int(),
      maxGraphGrowth: z.number().int(),
      maxActiveSessions: z.number().int(),
      idleTimeoutMs: z.number().int(),
      selfConsistencySamples: z.number().int(),
      treeOfThoughts: z.object({ breadth: z.number().int(), depth: z.number().int() }),
    }),
    documentationUrl: z.string().optional(),
  }),
);
export type ReasoningCapability = z.infer<typeof reasoningCapabilitySchema>;
