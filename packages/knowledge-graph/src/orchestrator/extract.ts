import type { ProvenanceKind } from "@deliberate/contracts";
import { findAmbiguousPairs, type MergedEntity } from "../algorithms/entity-merge.ts";
import { normalizeEntityName, normalizePredicate } from "../algorithms/names.ts";
import { type ExtractionAnswer, extractionMode } from "../modes/extraction.mode.ts";
import { createResolutionMode, pairKey } from "../modes/resolution.mode.ts";
import type { ReasoningRun } from "./reasoning-run.ts";

/** Longest text one extraction reads; longer text is cut (and the cut is reported). */
export const extractionTextLimit = 12_000;

export interface ExtractionRequest {
  source: string;
  text: string;
  kind: ProvenanceKind;
  step: string;
  reference: string | null;
}

export interface ExtractionOutcome {
  entities: number;
  relations: number;
}

function asMerged(entity: { key: string; name: string; type: string; observations: readonly string[] }): MergedEntity {
  return { key: entity.key, name: entity.name, type: entity.type, observations: entity.observations };
}

/**
 * Extracts entities and relations from a text into the graph (structured
 * output), merges entities deterministically by normalised name, and asks the
 * model only about the pairs that remain ambiguous (bounded). Relation
 * endpoints the answer did not list become entities of type `concept`.
 */
export async function extractInto(run: ReasoningRun, request: ExtractionRequest): Promise<ExtractionOutcome> {
  const { graph } = run;
  const text =
    request.text.length > extractionTextLimit ? `${request.text.slice(0, extractionTextLimit)}\n[cut]` : request.text;
  if (request.text.length > extractionTextLimit) {
    run.notices.push({
      field: null,
      message: `The ${request.source} was cut to ${extractionTextLimit.toLocaleString("en")} characters for extraction.`,
    });
  }
  const known = run.focus(`${run.input.goal} ${text.slice(0, 2000)}`);
  const answer: ExtractionAnswer = await run.ask(extractionMode, {
    source: request.source,
    goal: run.input.goal,
    text,
    known: known.text,
  });

  const mark = graph.mark();
  const existing = new Set(graph.entities().map((entity) => entity.key));
  const provenance = { kind: request.kind, taskId: run.input.taskId, step: request.step, reference: request.reference };
  const validity = "asserted" as const;
  let entities = 0;
  let relations = 0;
  for (const entity of answer.entities) {
    if (run.remainingGrowth() === 0 && !graph.entityNamed(entity.name)) {
      run.growthCapped(`extracting from the ${request.source}`);
      break;
    }
    graph.upsertEntity(entity, { confidence: 1, validity, provenance });
    entities += 1;
  }
  for (const relation of answer.relations) {
    const needed =
      [relation.subject, relation.object].filter((name) => !graph.entityNamed(name)).length +
      (graph.relation({
        subject: normalizeEntityName(relation.subject),
        predicate: normalizePredicate(relation.predicate),
        object: normalizeEntityName(relation.object),
      })
        ? 0
        : 1);
    if (needed > run.remainingGrowth()) {
      run.growthCapped(`extracting from the ${request.source}`);
      break;
    }
    const subject = graph.upsertEntity(
      { name: relation.subject, type: "concept", observations: [] },
      { confidence: 1, validity, provenance },
    ).key;
    const object = graph.upsertEntity(
      { name: relation.object, type: "concept", observations: [] },
      { confidence: 1, validity, provenance },
    ).key;
    graph.upsertRelation(
      { subject, predicate: relation.predicate, object },
      { confidence: relation.confidence, validity, provenance },
    );
    relations += 1;
  }

  // Entities names alone cannot settle: put the bounded set of ambiguous pairs to the model.
  const fresh = graph.entities().filter((entity) => !existing.has(entity.key));
  const others = graph.entities().filter((entity) => existing.has(entity.key));
  const pairs = findAmbiguousPairs(fresh.map(asMerged), others.map(asMerged), run.options.ambiguousPairLimit);
  let merged = 0;
  if (pairs.length > 0) {
    const describe = (key: string) => {
      const entity = graph.entity(key);
      return { name: entity?.name ?? key, type: entity?.type ?? "concept", observations: entity?.observations ?? [] };
    };
    const resolution = await run.ask(createResolutionMode(pairs.length), {
      goal: run.input.goal,
      pairs: pairs.map((pair) => ({ keep: describe(pair.keep), merge: describe(pair.merge), reason: pair.reason })),
    });
    for (const [index, pair] of pairs.entries()) {
      const decision = resolution.decisions[pairKey(index)];
      if (!decision?.same) continue;
      const keep = graph.entity(pair.keep);
      const drop = graph.entity(pair.merge);
      if (!keep || !drop?.fresh || existing.has(pair.merge)) continue;
      graph.mergeEntities(pair.keep, pair.merge);
      merged += 1;
    }
  }
  const added = graph.addedSince(mark);
  run.record(
    request.kind === "seed"
      ? "seed"
      : request.kind === "tool_result"
        ? "toolResult"
        : request.kind === "user_input"
          ? "userInput"
          : "extract",
    `Extracted ${answer.entities.length} entities and ${answer.relations.length} relations from the ${request.source}` +
      `${pairs.length > 0 ? `; ${pairs.length} ambiguous name pair(s) put to the model, ${merged} merged` : ""}` +
      `; the graph gained ${added.entities.length} entities and ${added.relations.length} relations.`,
    mark,
  );
  return { entities, relations };
}
