import {
  anthropicStrictSchemaProblem,
  anthropicToolSchemaProblem,
  openaiStrictSchemaProblem,
} from "./fake-schema-rules.ts";

/**
 * The documented request rules of the Anthropic Messages and OpenAI Chat
 * Completions APIs that the fake model server enforces, answering a request
 * that breaks one with the 400 the API sends. Model knowledge here is kept
 * apart from the providers' capability table on purpose: the fake checks the
 * table, it does not share its mistakes.
 */

/** A request the API would refuse: the message (and OpenAI's `param` / `code`). */
export interface FakeRefusal {
  message: string;
  param?: string;
  code?: string;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `claude-opus-4-8` → { line: "opus", version: 4.8 }; undefined for ids that are not Claude model names. */
function claudeGeneration(model: string): { line: string; version: number } | undefined {
  const id = model
    .toLowerCase()
    .replace(/^.*\//, "")
    .replace(/[@-]20\d{6}$/, "");
  const modern = /^claude-(opus|sonnet|haiku|fable|mythos)-(\d+)(?:-(\d))?$/.exec(id);
  if (modern) return { line: modern[1] as string, version: Number(modern[2]) + Number(modern[3] ?? 0) / 10 };
  if (id === "claude-mythos-preview") return { line: "mythos", version: 4.75 };
  const legacy = /^claude-(\d)-(\d)?-?(opus|sonnet|haiku)/.exec(id);
  if (legacy) return { line: legacy[3] as string, version: Number(legacy[1]) + Number(legacy[2] ?? 0) / 10 };
  return undefined;
}

/** What the fake believes of a Claude model (unknown ids: only the rules every model shares). */
interface ClaudeRules {
  adaptiveOnly: boolean;
  adaptive: boolean;
  alwaysThinks: boolean;
  forcedToolRefused: boolean;
  efforts: readonly string[] | undefined;
  structuredOutputs: boolean;
  maxOutput: number | undefined;
}

function claudeRules(model: string): ClaudeRules {
  const generation = claudeGeneration(model);
  if (!generation) {
    return {
      adaptiveOnly: false,
      adaptive: true,
      alwaysThinks: false,
      forcedToolRefused: false,
      efforts: undefined,
      structuredOutputs: true,
      maxOutput: undefined,
    };
  }
  const { line, version } = generation;
  const newest = version >= 5.5 || ((line === "fable" || line === "mythos") && version >= 5.1);
  const adaptiveOnly = version >= 4.7 || line === "fable" || line === "mythos";
  const adaptive = version >= 4.6 || line === "fable" || line === "mythos";
  const efforts =
    newest || (line === "opus" && version >= 4.7 && version < 5)
      ? ["low", "medium", "high", "xhigh", "max"]
      : line === "opus" && version === 4.6
        ? ["low", "medium", "high", "max"]
        : version >= 4.6 || (line === "opus" && version === 4.5)
          ? ["low", "medium", "high"]
          : [];
  return {
    adaptiveOnly,
    adaptive,
    alwaysThinks: newest || model.toLowerCase().includes("mythos-preview"),
    forcedToolRefused: newest,
    efforts,
    structuredOutputs: version >= 4.5,
    maxOutput: version >= 4.6 ? 128_000 : version >= 4.5 ? 64_000 : 32_000,
  };
}

/** The first rule an Anthropic Messages request breaks, or undefined. */
export function anthropicRefusal(body: Json): FakeRefusal | undefined {
  const model = typeof body["model"] === "string" ? body["model"] : "";
  const rules = claudeRules(model);
  for (const parameter of ["temperature", "top_p", "top_k"]) {
    if (body[parameter] !== undefined) return { message: `${parameter}: Extra inputs are not permitted` };
  }
  const maxTokens = body["max_tokens"];
  if (typeof maxTokens !== "number" || !Number.isInteger(maxTokens) || maxTokens < 1)
    return { message: "max_tokens: Field required (a positive integer)" };
  if (rules.maxOutput !== undefined && maxTokens > rules.maxOutput) {
    return {
      message: `max_tokens: ${maxTokens} > ${rules.maxOutput}, which is the maximum allowed number of output tokens for ${model}`,
    };
  }
  const thinking = isObject(body["thinking"]) ? body["thinking"] : undefined;
  const thinkingType = thinking?.["type"];
  if (thinkingType === "enabled" && rules.adaptiveOnly) {
    return {
      message: `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`,
    };
  }
  if (thinkingType === "disabled" && rules.alwaysThinks)
    return { message: `"thinking.type.disabled" is not supported for this model.` };
  if (thinkingType === "adaptive" && !rules.adaptive)
    return {
      message: `"thinking.type.adaptive" is not supported for this model. Use "thinking.type.enabled" with "budget_tokens".`,
    };
  if (thinkingType === "enabled") {
    const budget = thinking?.["budget_tokens"];
    if (typeof budget !== "number" || budget < 1024)
      return { message: "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024" };
    if (budget >= maxTokens)
      return {
        message:
          "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
      };
  }
  const outputConfig = isObject(body["output_config"]) ? body["output_config"] : undefined;
  const effort = outputConfig?.["effort"];
  if (effort !== undefined && effort !== null && rules.efforts !== undefined) {
    if (rules.efforts.length === 0)
      return { message: "output_config.effort: This model does not support the effort parameter." };
    if (!rules.efforts.includes(String(effort)))
      return {
        message: `output_config.effort: "${String(effort)}" is not supported for this model. Supported values: ${rules.efforts.join(", ")}.`,
      };
  }
  const format = isObject(outputConfig?.["format"]) ? (outputConfig?.["format"] as Json) : undefined;
  if (format) {
    if (!rules.structuredOutputs)
      return { message: "output_config.format: Structured outputs are not supported for this model." };
    const problem = anthropicStrictSchemaProblem(format["schema"]);
    if (problem) return { message: `output_config.format.schema: ${problem}` };
  }
  const thinks =
    thinkingType === "enabled" || thinkingType === "adaptive" || (rules.alwaysThinks && thinkingType === undefined);
  return anthropicToolRefusal(body, rules, thinks);
}

function anthropicToolRefusal(body: Json, rules: ClaudeRules, thinks: boolean): FakeRefusal | undefined {
  const tools = Array.isArray(body["tools"]) ? body["tools"] : [];
  for (const [index, tool] of tools.entries()) {
    if (!isObject(tool)) continue;
    const problem = anthropicToolSchemaProblem(tool["input_schema"]);
    if (problem) return { message: `tools.${index}.custom.${problem}` };
    if (tool["strict"] === true) {
      if (!rules.structuredOutputs)
        return { message: `tools.${index}.custom.strict: Strict tool use is not supported for this model.` };
      const strictProblem = anthropicStrictSchemaProblem(tool["input_schema"]);
      if (strictProblem) return { message: `tools.${index}.custom.input_schema: ${strictProblem}` };
    }
  }
  const choice = isObject(body["tool_choice"]) ? body["tool_choice"]["type"] : undefined;
  const forced = choice === "tool" || choice === "any";
  if (forced && rules.forcedToolRefused)
    return { message: `tool_choice: "${String(choice)}" is not supported for this model; use "auto" or "none".` };
  if (forced && thinks) return { message: "Thinking may not be enabled when tool_choice forces tool use." };
  return undefined;
}

/** What the fake believes of an OpenAI model. */
interface OpenAIRules {
  /** False for ids that are not OpenAI's (a compatible server's model): only the rules every request follows. */
  known?: boolean;
  reasoning: boolean;
  efforts: readonly string[];
  jsonSchema: boolean;
  maxOutput: number | undefined;
}

function openaiRules(model: string): OpenAIRules {
  const id = model.toLowerCase().replace(/^.*\//, "");
  if (/^gpt-5[\w.]*-chat/.test(id)) return { reasoning: false, efforts: [], jsonSchema: true, maxOutput: 16_384 };
  if (/^gpt-5[\w.]*-pro/.test(id)) return { reasoning: true, efforts: ["high"], jsonSchema: true, maxOutput: 272_000 };
  if (/^gpt-5(?:-mini|-nano|-codex)?(?:-\d{4}-\d{2}-\d{2})?$/.test(id))
    return { reasoning: true, efforts: ["minimal", "low", "medium", "high"], jsonSchema: true, maxOutput: 128_000 };
  if (/^gpt-5\.1/.test(id))
    return { reasoning: true, efforts: ["none", "low", "medium", "high"], jsonSchema: true, maxOutput: 128_000 };
  if (/^gpt-5\./.test(id))
    return {
      reasoning: true,
      efforts: ["none", "low", "medium", "high", "xhigh"],
      jsonSchema: true,
      maxOutput: 128_000,
    };
  if (/^o1-(?:mini|preview)/.test(id)) return { reasoning: true, efforts: [], jsonSchema: false, maxOutput: 65_536 };
  if (/^(?:o1|o3|o4-mini)(?:-|$)/.test(id))
    return { reasoning: true, efforts: ["low", "medium", "high"], jsonSchema: true, maxOutput: 100_000 };
  if (/^gpt-4\.1/.test(id)) return { reasoning: false, efforts: [], jsonSchema: true, maxOutput: 32_768 };
  if (/^gpt-4o/.test(id)) return { reasoning: false, efforts: [], jsonSchema: true, maxOutput: 16_384 };
  if (/^(?:gpt-4(?:-|$)|gpt-3\.5)/.test(id))
    return { reasoning: false, efforts: [], jsonSchema: false, maxOutput: 4096 };
  return { known: false, reasoning: false, efforts: [], jsonSchema: true, maxOutput: undefined };
}

const quoteList = (values: readonly string[]) => values.map((value) => `'${value}'`).join(", ");

/** The first rule an OpenAI Chat Completions request breaks, or undefined. */
export function openaiRefusal(body: Json): FakeRefusal | undefined {
  const model = typeof body["model"] === "string" ? body["model"] : "";
  const rules = openaiRules(model);
  if (rules.reasoning) {
    if (body["max_tokens"] !== undefined) {
      return {
        message:
          "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        param: "max_tokens",
        code: "unsupported_parameter",
      };
    }
    for (const parameter of ["temperature", "top_p"]) {
      const value = body[parameter];
      if (value !== undefined && value !== 1) {
        return {
          message: `Unsupported value: '${parameter}' does not support ${String(value)} with this model. Only the default (1) value is supported.`,
          param: parameter,
          code: "unsupported_value",
        };
      }
    }
  }
  const effort = body["reasoning_effort"];
  if (effort !== undefined && effort !== null && rules.known !== false) {
    if (!rules.reasoning || rules.efforts.length === 0) {
      return {
        message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
        param: "reasoning_effort",
        code: "unsupported_parameter",
      };
    }
    if (!rules.efforts.includes(String(effort))) {
      return {
        message: `Unsupported value: 'reasoning_effort' does not support '${String(effort)}' with this model. Supported values are: ${quoteList(rules.efforts)}.`,
        param: "reasoning_effort",
        code: "unsupported_value",
      };
    }
  }
  const cap = body["max_completion_tokens"] ?? body["max_tokens"];
  if (typeof cap === "number" && rules.maxOutput !== undefined && cap > rules.maxOutput) {
    return {
      message: `max_tokens is too large: ${cap}. This model supports at most ${rules.maxOutput} completion tokens, whereas you provided ${cap}.`,
      param: "max_tokens",
      code: "invalid_value",
    };
  }
  const responseFormat = isObject(body["response_format"]) ? body["response_format"] : undefined;
  if (responseFormat?.["type"] === "json_schema") {
    if (!rules.jsonSchema)
      return {
        message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
        param: "response_format",
      };
    const jsonSchema = isObject(responseFormat["json_schema"]) ? responseFormat["json_schema"] : {};
    if (jsonSchema["strict"] === true) {
      const problem = openaiStrictSchemaProblem(jsonSchema["schema"]);
      if (problem)
        return {
          message: `Invalid schema for response_format '${String(jsonSchema["name"] ?? "")}': ${problem}`,
          param: "response_format",
          code: "invalid_json_schema",
        };
    }
  }
  return undefined;
}
