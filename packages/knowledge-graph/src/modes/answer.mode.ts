import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";
import { confidenceAnswerSchema, tripleAnswerSchema } from "./schema-parts.ts";

/** The `knowledge_graph_answer` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const answerModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_answer",
  settings: { temperature: 0.3, maxTokens: 2000 },
};
/** The `knowledge_graph_sample` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const sampleModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_sample",
  settings: { temperature: 0.8, maxTokens: 2000 },
};

export interface AnswerInput {
  goal: string;
  graph: string;
  /** What the reasoning steps of this call established (derivations, selected hypothesis, path checks...). */
  findings: string;
  /** For self-consistency: which sample this is, so each is drawn independently. */
  sample: { index: number; of: number } | null;
}

export interface AnswerOutput {
  reasoning: string[];
  answer: string;
  answerKey: string;
  confidence: number;
  supportingFacts: Array<{ subject: string; predicate: string; object: string }>;
}

const system =
  "You answer a question from a knowledge graph and the findings of the reasoning done on it. Think step by step: write each step of your reasoning, then the answer. Cite the graph facts your answer rests on as supportingFacts, exactly as they appear in the graph (subject, predicate, object). State how confident you are. Do not use facts that are not in the graph or the findings; if they do not settle the question, say so in the answer and give a low confidence.";

function prompt(input: AnswerInput): string {
  return [
    `Question: ${input.goal}`,
    ...(input.sample ? [`(Independent attempt ${input.sample.index + 1} of ${input.sample.of}: reason afresh.)`] : []),
    "",
    "Knowledge graph (relevant part):",
    input.graph,
    "",
    "Findings of the reasoning steps:",
    input.findings || "(none)",
  ].join("\n");
}

function output(names: readonly string[]) {
  return z.object({
    reasoning: z.array(z.string().min(1).max(600)).min(1).max(10).describe("Your steps, in order"),
    answer: z.string().min(1).max(4000),
    answerKey: z.string().min(1).max(120).describe("The answer in a few words (an entity name, yes/no, a number)"),
    confidence: confidenceAnswerSchema,
    supportingFacts: z.array(tripleAnswerSchema(names)).max(10),
  });
}

/** The answer step with standard chain of thought. */
export function createAnswerMode(names: readonly string[]): ModeDefinition<AnswerInput, AnswerOutput> {
  return defineMode<AnswerInput, AnswerOutput>({
    ...answerModeDeclaration,
    name: "knowledge_graph_answer",
    description: "The answer with its reasoning steps, cited graph facts and confidence",
    system,
    prompt,
    output: output(names),
  });
}

/** The same answer step, sampled at a higher temperature for self-consistency. */
export function createSampleMode(names: readonly string[]): ModeDefinition<AnswerInput, AnswerOutput> {
  return defineMode<AnswerInput, AnswerOutput>({
    ...sampleModeDeclaration,
    name: "knowledge_graph_answer_sample",
    description: "One independent answer with its reasoning steps, cited graph facts and confidence",
    system,
    prompt,
    output: output(names),
  });
}
