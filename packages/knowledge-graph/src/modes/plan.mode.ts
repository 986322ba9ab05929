import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";
import { describeTools, type HostTool, toolCallAnswerSchemas } from "./schema-parts.ts";

/** The `knowledge_graph_plan` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const planModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_plan",
  settings: { temperature: 0.3, maxTokens: 2500 },
};

export interface PlanInput {
  goal: string;
  graph: string;
  tools: readonly HostTool[];
  maxPlanDepth: number;
  allowUserInput: boolean;
  currentPlanStep: string | null;
}

export type PlannedStep =
  | { kind: "induce" | "deduce" | "abduce"; purpose: string }
  | { kind: "toolCall"; purpose: string; toolName: string; toolArguments: Record<string, unknown> }
  | { kind: "askUser"; purpose: string; question: string };

export interface PlanAnswer {
  steps: PlannedStep[];
}

/**
 * planAndExecuteCoT: a plan whose steps are graph operations (induce, deduce,
 * abduce), calls of the host's tools (arguments constrained by each tool's
 * schema) or a question for the user, at most `maxPlanDepth` steps.
 */
export function createPlanMode(
  tools: readonly HostTool[],
  maxPlanDepth: number,
  allowUserInput: boolean,
): ModeDefinition<PlanInput, PlanAnswer> {
  const purpose = z.string().min(1).max(300).describe("What the step establishes for the goal");
  const alternatives: z.ZodType[] = [z.object({ kind: z.enum(["induce", "deduce", "abduce"]), purpose })];
  alternatives.push(...toolCallAnswerSchemas(tools, { kind: z.literal("toolCall"), purpose }));
  if (allowUserInput)
    alternatives.push(z.object({ kind: z.literal("askUser"), purpose, question: z.string().min(1).max(500) }));
  const step =
    alternatives.length === 1
      ? (alternatives[0] as z.ZodType)
      : z.union(alternatives as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  return defineMode<PlanInput, PlanAnswer>({
    ...planModeDeclaration,
    name: "knowledge_graph_plan",
    description: "A short plan of graph operations, tool calls and questions that reaches the goal",
    system:
      "You plan reasoning over a knowledge graph. Given the graph and the goal, propose a short plan; each step is one of: induce (find patterns across entities and generalise them into new concepts), deduce (state the premises as explicit rules and apply them to the graph), abduce (hypothesise the missing nodes and edges that best explain the observations), toolCall (call one of the host's tools, with arguments matching its schema, when the graph lacks information a tool can fetch), askUser (ask the user, only for information no tool can provide). Order the steps so each builds on the previous ones; use as few as the goal needs.",
    prompt: (input) =>
      [
        `Goal: ${input.goal}`,
        ...(input.currentPlanStep ? [`The host's current plan step: ${input.currentPlanStep}`] : []),
        `At most ${input.maxPlanDepth} steps.`,
        "",
        "Current knowledge graph (relevant part):",
        input.graph,
        "",
        "The host's tools:",
        describeTools(input.tools),
        ...(input.allowUserInput ? [] : ["", "Do not ask the user."]),
      ].join("\n"),
    output: z.object({ steps: z.array(step).min(1).max(maxPlanDepth) }) as unknown as z.ZodType<PlanAnswer>,
  });
}
