import type { FieldIssue } from "@deliberate/base";
import { z } from "zod";
import {
  type AnthropicCapabilities,
  anthropicEffortLevels,
  type CapabilityOverride,
  type OpenAICapabilities,
  openaiEffortLevels,
} from "./model-capabilities.ts";

const anthropicFields = z
  .object({
    thinking: z.enum(["adaptive", "budget", "none"]),
    thinkingAlwaysOn: z.boolean(),
    thinkingByDefault: z.boolean(),
    effort: z.array(z.enum(anthropicEffortLevels)),
    structuredOutputs: z.boolean(),
    forcedToolChoice: z.boolean(),
  })
  .partial()
  .strict();

const openaiFields = z
  .object({
    reasoning: z.boolean(),
    effort: z.array(z.enum(openaiEffortLevels)),
    temperature: z.boolean(),
    maxCompletionTokens: z.boolean(),
    strictJsonSchema: z.boolean(),
  })
  .partial()
  .strict();

const patternKey = /^[\w.:/@*-]+$/;

function parseOverrides<C>(
  value: string | undefined,
  name: string,
  fields: z.ZodType,
  example: string,
  issues: FieldIssue[],
): CapabilityOverride<C>[] {
  if (value === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    issues.push({
      field: name,
      message: `must be a JSON object of model id patterns, e.g. ${example} (${error instanceof Error ? error.message : String(error)})`,
    });
    return [];
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    issues.push({ field: name, message: `must be a JSON object of model id patterns, e.g. ${example}` });
    return [];
  }
  const overrides: CapabilityOverride<C>[] = [];
  for (const [pattern, entry] of Object.entries(parsed)) {
    if (!patternKey.test(pattern)) {
      issues.push({
        field: `${name}.${pattern}`,
        message: "is not a model id pattern (letters, digits, . : / @ - _ and * wildcards)",
      });
      continue;
    }
    const result = fields.safeParse(entry);
    if (!result.success) {
      for (const issue of result.error.issues) {
        issues.push({ field: [name, pattern, ...issue.path.map(String)].join("."), message: issue.message });
      }
      continue;
    }
    overrides.push({ pattern, capabilities: result.data as Partial<Omit<C, "source">> });
  }
  return overrides;
}

/**
 * `ANTHROPIC_MODEL_CAPABILITIES`: a JSON object from model id patterns
 * (`*` wildcards) to the capabilities to set for them, e.g.
 * `{"claude-opus-6*":{"thinking":"adaptive","effort":["low","medium","high"],"forcedToolChoice":false}}`.
 * Fields: thinking (adaptive | budget | none), thinkingAlwaysOn, thinkingByDefault, effort (low, medium, high, xhigh, max),
 * structuredOutputs, forcedToolChoice.
 */
export function parseAnthropicCapabilityOverrides(
  value: string | undefined,
  issues: FieldIssue[],
): CapabilityOverride<AnthropicCapabilities>[] {
  return parseOverrides<AnthropicCapabilities>(
    value,
    "ANTHROPIC_MODEL_CAPABILITIES",
    anthropicFields,
    '{"claude-opus-6*":{"thinking":"adaptive","effort":["low","medium","high"]}}',
    issues,
  );
}

/**
 * `OPENAI_MODEL_CAPABILITIES`: a JSON object from model id patterns to the
 * capabilities to set, e.g. `{"qwen3*":{"reasoning":true,"effort":["low","medium","high"],"strictJsonSchema":false}}`.
 * Fields: reasoning, effort (none, minimal, low, medium, high, xhigh), temperature, maxCompletionTokens, strictJsonSchema.
 */
export function parseOpenAICapabilityOverrides(
  value: string | undefined,
  issues: FieldIssue[],
): CapabilityOverride<OpenAICapabilities>[] {
  return parseOverrides<OpenAICapabilities>(
    value,
    "OPENAI_MODEL_CAPABILITIES",
    openaiFields,
    '{"qwen3*":{"reasoning":true,"effort":["low","medium","high"]}}',
    issues,
  );
}
