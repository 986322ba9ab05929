import { z } from "zod";
import { defineMode } from "@deliberate/engine";

export const critiqueAnswerSchema = z.object({
  quality_score: z.number().min(0).max(1).describe("Quality of the reasoning as given, 0..1"),
  strengths: z.array(z.string()),
  weaknesses: z.array(z.string()),
  recommendations: z.array(z.string()),
  refined_content: z.string().min(1).describe("The reasoning rewritten to fix the weaknesses"),
  refined_quality_score: z.number().min(0).max(1).describe("Quality of the refined reasoning, 0..1"),
});

export const reflectionMode = defineMode({
  mode: "reflection",
  name: "reflection_critique",
  description: "A critique of the reasoning with strengths, weaknesses and a refined version.",
  system: [
    "You review reasoning written by another AI agent, as a demanding but fair reviewer.",
    "Score its quality from 0 to 1 (logic, evidence, completeness, clarity). Name concrete strengths and weaknesses, recommend fixes, then rewrite it so the weaknesses are fixed, and score the rewrite by the same standard.",
    "Do not inflate scores: 0.8 means sound with minor gaps.",
  ].join("\n"),
  prompt: (input: { content: string; iteration: number; history: string }) =>
    `${input.history}Reasoning to review (iteration ${input.iteration}):\n${input.content}`,
  output: critiqueAnswerSchema,
});

export const evaluationAnswerSchema = z.object({
  quality_score: z.number().min(0).max(1).describe("Overall quality of the session's reasoning, 0..1"),
  coherence_score: z.number().min(0).max(1).describe("How well the steps hang together, 0..1"),
  strengths: z.array(z.string()),
  weaknesses: z.array(z.string()),
  recommendations: z.array(z.string()),
});

export const evaluationMode = defineMode({
  mode: "reflection",
  name: "reflection_session_evaluation",
  description: "An assessment of a whole session's reasoning quality and coherence.",
  system: [
    "You assess a whole session of reasoning by another AI agent.",
    "Judge overall quality and coherence (do the steps follow from each other, is the thread kept, are conclusions supported) from 0 to 1, and give specific strengths, weaknesses and recommendations that refer to numbered steps.",
  ].join("\n"),
  prompt: (input: { transcript: string; thoughtCount: number }) => `The session has ${input.thoughtCount} steps:\n${input.transcript}`,
  output: evaluationAnswerSchema,
});
