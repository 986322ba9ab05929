import type { ScriptedResponder } from "@deliberate/providers/testing";
import { z } from "zod";

/** One turn as a scripted model sees it. */
export interface ScriptedTurn {
  iteration: number;
  agent: string;
  act: "produce" | "merge" | "review" | "summarise";
}

/** How a scripted model plays every agent of a session. */
export interface DialogScript {
  /** The score a reviewer gives every criterion (default 0.5). */
  reviewerScore?: (turn: ScriptedTurn) => number;
  /** The author's grade of its own document (default 0.9: authors grade themselves generously). */
  selfAssessment?: (turn: ScriptedTurn) => number;
  /** The document a producer or merger writes (default: a short line naming the turn). */
  document?: (turn: ScriptedTurn) => string;
  /** The summary the summariser writes (default: a line naming what it covers). */
  summary?: (prompt: string) => string;
}

/** What identifies a dialog prompt: its answer's name, its system and user text, its JSON schema. */
export interface DialogPrompt {
  schemaName: string;
  system: string;
  user: string;
  jsonSchema: Record<string, unknown>;
}

const actsBySchema: Record<string, ScriptedTurn["act"]> = {
  dialog_document: "produce",
  dialog_merge: "merge",
  dialog_review: "review",
  dialog_summary: "summarise",
};

/** Reads the turn from a dialog prompt (the agent from the system prompt, the iteration from the task heading). */
export function turnOfPrompt(prompt: DialogPrompt): ScriptedTurn {
  const act = actsBySchema[prompt.schemaName];
  if (act === undefined) throw new Error(`Not a dialog prompt: ${prompt.schemaName}`);
  const agent = /You are "([^"]+)"/.exec(prompt.system)?.[1] ?? "summariser";
  const iteration = Number(/# Your task \(iteration (\d+)\)/.exec(prompt.user)?.[1] ?? -1);
  return { iteration, agent, act };
}

/** A valid answer to any dialog prompt, following the script. */
export function answerDialogPrompt(prompt: DialogPrompt, script: DialogScript = {}): Record<string, unknown> {
  const turn = turnOfPrompt(prompt);
  if (turn.act === "summarise")
    return { summary: script.summary?.(prompt.user) ?? "Summary of the earlier iterations." };
  if (turn.act === "review") {
    const properties =
      (prompt.jsonSchema["properties"] as Record<string, { properties?: Record<string, unknown> }>)["scores"]
        ?.properties ?? {};
    const criteria = Object.keys(properties);
    const score = script.reviewerScore?.(turn) ?? 0.5;
    return {
      scores: Object.fromEntries(criteria.map((name) => [name, { score, rationale: `${name} judged at ${score}` }])),
      directives: [
        {
          criterion: criteria[0],
          directive: `Iteration ${turn.iteration}: strengthen ${criteria[0]} (from ${turn.agent}).`,
        },
        {
          criterion: criteria[1] ?? criteria[0],
          directive: `Iteration ${turn.iteration}: expand ${criteria[1] ?? criteria[0]}.`,
        },
      ],
    };
  }
  return {
    document:
      script.document?.(turn) ?? `# Document\nWritten by ${turn.agent} (${turn.act}) in iteration ${turn.iteration}.`,
    self_assessment: { score: script.selfAssessment?.(turn) ?? 0.9, rationale: "I covered the rubric." },
  };
}

// JSON schemas by zod schema: review schemas are built once per rubric, so this converts each once.
const jsonSchemas = new WeakMap<object, Record<string, unknown>>();

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (json === undefined) {
    json = z.toJSONSchema(schema, { unrepresentable: "any" }) as Record<string, unknown>;
    jsonSchemas.set(schema, json);
  }
  return json;
}

/** A responder for createScriptedModel that plays every agent by the script. */
export function scriptedDialogResponder(script: DialogScript = {}): ScriptedResponder {
  return (options) =>
    answerDialogPrompt(
      {
        schemaName: options.schemaName ?? "",
        system: options.system,
        user: options.messages.map((message) => message.content).join("\n\n"),
        jsonSchema: options.schema ? jsonSchemaOf(options.schema) : {},
      },
      script,
    );
}
