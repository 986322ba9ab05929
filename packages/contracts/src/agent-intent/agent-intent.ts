import { looseInteger } from "../coerce.ts";
import { z } from "zod";
import { jsonObjectInput, jsonScalarSchema, recordInput } from "../published-form.ts";
import { lazySchema } from "../lazy-schema.ts";

// Free-form objects, published as key/value pairs (strict clients cannot send open objects); the object form stays accepted.
const looseObject = () =>
  recordInput(z.unknown(), { keyName: "key", what: "key", publishedValue: jsonScalarSchema }).nullish();

/** A tool the agent can call next: its name and the JSON Schema of its arguments. */
export const offeredToolSchema = lazySchema(() =>
  z
    .object({
      name: z
        .string()
        .trim()
        .min(1, "name must not be empty")
        .max(128)
        .describe("Tool name exactly as the agent calls it"),
      description: z.string().max(4000).nullish().describe("What the tool does (shown to the model)"),
      input_schema: jsonObjectInput("input_schema")
        .nullish()
        .describe(
          "JSON Schema of the tool's arguments (an object schema); tool_args are validated against it. Omit for no arguments check.",
        ),
    })
    .meta({ title: "OfferedTool" }),
);
export type OfferedToolInput = z.infer<typeof offeredToolSchema>;

/** Provider and model for this one request; the key is used for this call only and never logged or stored. */
export const llmChoiceSchema = lazySchema(() =>
  z
    .object({
      provider: z.enum(["anthropic", "openai"]).nullish().describe("Provider for this request; default the server's"),
      model: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .nullish()
        .describe("Model id for this request; default the server's model for the auto mode"),
      api_key: z
        .string()
        .min(1)
        .max(1000)
        .nullish()
        .describe("API key for this request only: never logged, stored or echoed"),
    })
    .meta({ title: "LlmChoice" }),
);

/** `AgentIntentRequest` (spec), plus `tools`. Unknown fields are ignored; `null` counts as absent. */
export const agentIntentRequestSchema = lazySchema(() =>
  z
    .object({
      session_id: z.string().max(200).nullish().describe("The agent's session"),
      persona: looseObject().describe("Who the agent is"),
      driver: looseObject().describe("Driver / runtime settings of the agent"),
      rules: looseObject().describe("Rules the agent must follow"),
      instructions: z.string().nullish().describe("Extra instructions for this decision"),
      llm: llmChoiceSchema.nullish(),
      repo_context: looseObject().describe("Repository context"),
      memory_state: looseObject().describe("The agent's memory"),
      history: z
        .array(z.unknown())
        .max(1000)
        .nullish()
        .describe(
          "Earlier steps, oldest first (tool calls with their results, messages); each entry counts as one step",
        ),
      goal_text: z.string().nullish().describe("What the agent is trying to achieve"),
      forced_tool: z
        .string()
        .trim()
        .min(1)
        .nullish()
        .describe("Skip the decision: call this tool (arguments built from goal_text)"),
      max_steps: looseInteger({ min: 1 })
        .nullish()
        .describe("When the history holds this many steps, the run ends (finish with the reason)"),
      agent_state: looseObject().describe("Agent state, e.g. stuck flags"),
      callback_url: z
        .string()
        .nullish()
        .describe("Where /agent_intent_async POSTs the result (ignored by /agent_intent)"),
      correlation_id: z.string().max(200).nullish().describe("Caller's id for this request; cancel async jobs by it"),
      tools: z
        .array(offeredToolSchema)
        .max(256)
        .nullish()
        .describe(
          "Tools the agent can call next. The decision is constrained to these (or finish). Default: context.fts_search {query}.",
        ),
    })
    .meta({ title: "AgentIntentRequest" }),
);
export type AgentIntentRequest = z.infer<typeof agentIntentRequestSchema>;

/** One step of how the decision was made. */
export const traceEntrySchema = lazySchema(() =>
  z
    .object({
      step: z.string().describe("e.g. tools, max_steps, forced_tool, model, validate_tool_args, heuristic"),
      detail: z.string(),
      duration_ms: z.number().optional(),
    })
    .meta({ title: "TraceEntry" }),
);
export type TraceEntry = z.infer<typeof traceEntrySchema>;

export const decidedBySchema = lazySchema(() => z.enum(["model", "heuristic", "forced_tool", "max_steps"]));
export type DecidedBy = z.infer<typeof decidedBySchema>;

/** `AgentIntentResponse` (spec), plus `decided_by` and `model`. */
export const agentIntentResponseSchema = lazySchema(() =>
  z
    .object({
      status: z.literal("ok"),
      duration_ms: z.number().int(),
      intent_id: z.string(),
      tool_name: z.string().nullable().describe("The tool to call next; null when finishing"),
      tool_args: z
        .record(z.string(), z.unknown())
        .describe("Arguments for tool_name, valid against its input_schema; {} when finishing"),
      reasoning: z.string(),
      finish: z.boolean(),
      final_text: z.string().nullable().describe("The final answer or reason when finishing; null otherwise"),
      trace: z.array(traceEntrySchema),
      decided_by: decidedBySchema.describe(
        "What made the decision: the model, the heuristic (no model configured), forced_tool or max_steps",
      ),
      model: z
        .object({ provider: z.string(), model_id: z.string() })
        .optional()
        .describe("The model that decided, when one did"),
    })
    .meta({ title: "AgentIntentResponse" }),
);
export type AgentIntentResponse = z.infer<typeof agentIntentResponseSchema>;
