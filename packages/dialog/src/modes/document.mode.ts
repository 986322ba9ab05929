import { lazySchema, type AgentConfig } from "@deliberate/contracts";
import { z } from "zod";
import type { DialogPreset } from "../presets/dialog-preset.ts";
import { type DialogModeDefinition, text } from "./dialog-mode.ts";
import {
  renderDirectives,
  renderDocuments,
  renderSessionSections,
  rubricLines,
  sessionRole,
  shortenedDocumentTask,
  type TurnPromptInput,
} from "./prompt-sections.ts";
import type { ModeDeclaration } from "@deliberate/engine";

/** The `dialog_producer` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const producerModeDeclaration = {
  mode: "dialog_producer",
  settings: { temperature: 0.7, maxTokens: 4000 },
} as const satisfies ModeDeclaration;
/** The `dialog_merger` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const mergerModeDeclaration = {
  mode: "dialog_merger",
  settings: { temperature: 0.5, maxTokens: 4000 },
} as const satisfies ModeDeclaration;

/** The longest document an agent may write (the prompts ask for under 8,000 characters). */
export const maxDocumentCharacters = 12_000;

/** What a producer or merger answers: the complete document and its author's own grade. */
export const documentAnswerSchema = lazySchema(() =>
  z.object({
    document: text(maxDocumentCharacters).describe(
      "The COMPLETE document in Markdown with clear sections: never a diff, a list of changes or an explanation of them",
    ),
    self_assessment: z
      .object({
        score: z.number().min(0).max(1).describe("Your own grade of this document against the rubric, 0..1"),
        rationale: text(500).describe("One or two sentences: why this grade"),
      })
      .describe("Recorded beside the reviewers' score; it does not decide when the session stops"),
  }),
);
export type DocumentAnswer = z.infer<typeof documentAnswerSchema>;

function documentRules(preset: DialogPreset): string {
  return [
    `Write the COMPLETE document every time, in Markdown with clear sections, at most ${maxDocumentCharacters.toLocaleString("en-US")} characters (aim for under 8,000). Never answer with a diff, a list of changes or an explanation of what you changed.`,
    "Then grade your own document against the rubric in self_assessment (0..1) with a one-sentence rationale. Be honest: reviewers score it independently.",
    `Rubric the reviewers will apply:\n${rubricLines(preset.criteria)}`,
  ].join("\n\n");
}

/** The producer's turn: iteration 0 analyses the topic; later turns refine the document, incorporating every directive. */
export function createProducerMode(
  agent: AgentConfig,
  preset: DialogPreset,
): DialogModeDefinition<TurnPromptInput, DocumentAnswer> {
  return {
    ...producerModeDeclaration,
    name: "dialog_document",
    description: "The complete document of this turn and the author's self-assessment.",
    system: [agent.systemPrompt, "---", sessionRole(agent), documentRules(preset)].join("\n\n"),
    prompt: (input) => {
      const sections = [renderSessionSections(input)];
      let task: string;
      if (input.documents.length === 0) {
        task = `Analyse the topic${input.context !== null && input.context.trim() !== "" ? " and the context" : ""} and write the first complete version of the document.`;
      } else {
        sections.push(renderDocuments(input.documents, "Current document"));
        if (input.directives.length > 0) {
          sections.push(`# Directives to incorporate (all of them)\n${renderDirectives(input.directives)}`);
          task =
            "Write the COMPLETE refined document, incorporating ALL the directives above. Do not explain what you changed; produce the improved document itself.";
        } else {
          task = "Write the COMPLETE refined version of the document.";
        }
      }
      sections.push(
        `# Your task (iteration ${input.iteration})\n${task}${shortenedDocumentTask(input.documents)}\n${preset.instructions.produce}`,
      );
      return sections.join("\n\n");
    },
    output: documentAnswerSchema,
  };
}

/** The merger's turn: one complete document from the current documents and any pending directives. */
export function createMergerMode(
  agent: AgentConfig,
  preset: DialogPreset,
): DialogModeDefinition<TurnPromptInput, DocumentAnswer> {
  return {
    ...mergerModeDeclaration,
    name: "dialog_merge",
    description: "The merged complete document of this turn and the merger's self-assessment.",
    system: [agent.systemPrompt, "---", sessionRole(agent), documentRules(preset)].join("\n\n"),
    prompt: (input) => {
      const sections = [renderSessionSections(input), renderDocuments(input.documents, "Document to merge")];
      if (input.directives.length > 0)
        sections.push(`# Directives to incorporate (all of them)\n${renderDirectives(input.directives)}`);
      const count =
        input.documents.length === 1 ? "the document above" : `the ${input.documents.length} documents above`;
      sections.push(
        `# Your task (iteration ${input.iteration})\nMerge ${count} into one complete document.${shortenedDocumentTask(input.documents)}\n${preset.instructions.merge}`,
      );
      return sections.join("\n\n");
    },
    output: documentAnswerSchema,
  };
}
