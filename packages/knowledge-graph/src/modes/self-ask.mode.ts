import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";
import { describeTools, type HostTool, toolCallAnswerSchemas } from "./schema-parts.ts";

/** The `knowledge_graph_self_ask` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const selfAskModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_self_ask",
  settings: { temperature: 0.3, maxTokens: 2000 },
};

export interface SelfAskInput {
  goal: string;
  graph: string;
  findings: string;
  tools: readonly HostTool[];
  allowUserInput: boolean;
}

export type SubQuestion =
  | { source: "graph"; question: string }
  | { source: "user"; question: string }
  | { source: "tool"; question: string; toolName: string; toolArguments: Record<string, unknown> };

export interface SelfAskAnswer {
  subQuestions: SubQuestion[];
}

/** Self-ask: the follow-up questions the goal needs, each answered from the graph, by a host tool, or by the user. */
export function createSelfAskMode(
  tools: readonly HostTool[],
  allowUserInput: boolean,
): ModeDefinition<SelfAskInput, SelfAskAnswer> {
  const question = z.string().min(1).max(300);
  const alternatives: z.ZodType[] = [z.object({ source: z.literal("graph"), question })];
  alternatives.push(...toolCallAnswerSchemas(tools, { source: z.literal("tool"), question }));
  if (allowUserInput) alternatives.push(z.object({ source: z.literal("user"), question }));
  const subQuestion =
    alternatives.length === 1
      ? (alternatives[0] as z.ZodType)
      : z.union(alternatives as [z.ZodType, z.ZodType, ...z.ZodType[]]);
  return defineMode<SelfAskInput, SelfAskAnswer>({
    ...selfAskModeDeclaration,
    name: "knowledge_graph_self_ask",
    description: "Follow-up questions that together answer the goal",
    system:
      "You use the self-ask method: before answering, list the follow-up questions whose answers you need, simplest first. For each, say where its answer comes from: the knowledge graph (source graph), one of the host's tools (source tool, with the tool's arguments matching its schema) when the graph lacks the information, or the user (source user) only when nothing else can provide it.",
    prompt: (input) =>
      [
        `Question: ${input.goal}`,
        "",
        "Knowledge graph (relevant part):",
        input.graph,
        "",
        "Findings so far:",
        input.findings || "(none)",
        "",
        "The host's tools:",
        describeTools(input.tools),
        ...(input.allowUserInput ? [] : ["", "Do not ask the user."]),
      ].join("\n"),
    output: z.object({ subQuestions: z.array(subQuestion).min(1).max(4) }) as unknown as z.ZodType<SelfAskAnswer>,
  });
}
