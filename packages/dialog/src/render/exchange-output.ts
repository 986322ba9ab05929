import type { DialogExchange } from "@deliberate/contracts";
import type { ReviewAnswer } from "../modes/review.mode.ts";
import type { DialogPreset } from "../presets/dialog-preset.ts";
import type { DialogExchangeRecord } from "../store/repositories/dialog-session.repository.ts";

/** A review as the transcript shows it: the combined score, each criterion, the directives. */
export function renderReview(answer: ReviewAnswer, score: number, preset: DialogPreset): string {
  const criteria = preset.criteria.map((criterion) => {
    const judged = answer.scores[criterion.name] as { score: number; rationale: string };
    return `- ${criterion.name}: ${judged.score.toFixed(2)} (${judged.rationale})`;
  });
  const directives = answer.directives.map(
    (directive, index) => `${index + 1}. [${directive.criterion}] ${directive.directive}`,
  );
  return [`Score: ${score.toFixed(2)}`, ...criteria, "", "Directives:", ...directives].join("\n");
}

/** The structured answer without the document text, which the turn's content already carries. */
function answerWithoutDocument(record: DialogExchangeRecord): Record<string, unknown> {
  if (record.act === "review" || !("document" in record.answer)) return record.answer;
  const { document: _document, ...rest } = record.answer;
  return rest;
}

/** A stored turn in the tools' output shape: the document once (as content), not again in the answer. */
export function toExchangeOutput(record: DialogExchangeRecord): DialogExchange {
  return {
    agent: record.agent,
    role: record.role,
    content: record.content,
    tokens: { input: record.tokens.input, output: record.tokens.output, estimated: record.tokens.estimated },
    timestamp: record.created_at,
    ...(record.state !== null ? { consciousness_state: record.state } : {}),
    iteration: record.iteration,
    step: record.step,
    act: record.act,
    model: record.model,
    answer: answerWithoutDocument(record),
  };
}
