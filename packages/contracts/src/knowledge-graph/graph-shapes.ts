import { z } from "zod";
import { epistemicStatusSchema, provenanceKindSchema, validitySchema } from "./vocabulary.ts";
import { lazySchema } from "../lazy-schema.ts";

/** A subject-predicate-object statement by entity names. */
export const tripleSchema = lazySchema(() =>
  z.object({
    subject: z.string(),
    predicate: z.string(),
    object: z.string(),
  }),
);
export type Triple = z.infer<typeof tripleSchema>;

/** What produced a graph element: the kind, the executeTask call, the step and, for tool results, the tool call. */
export const provenanceSchema = lazySchema(() =>
  z.object({
    kind: provenanceKindSchema,
    taskId: z.string().describe("The taskId of the call that produced the element"),
    step: z.string().nullable().describe("The step of that call, e.g. 'seed' or 'plan step 2: deduce'"),
    reference: z.string().nullable().describe("The tool call id, rule or hypothesis the element came from"),
  }),
);
export type Provenance = z.infer<typeof provenanceSchema>;

/** How a deduced triple follows: the rule and the premises it matched. */
export const derivationSchema = lazySchema(() =>
  z.object({
    rule: z.string(),
    premises: z.array(tripleSchema),
  }),
);
export type Derivation = z.infer<typeof derivationSchema>;

/** An entity (node) of a session's knowledge graph. */
export const knowledgeEntitySchema = lazySchema(() =>
  z.object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    observations: z.array(z.string()),
    confidence: z.number().min(0).max(1),
    validity: validitySchema,
    provenance: provenanceSchema,
  }),
);
export type KnowledgeEntity = z.infer<typeof knowledgeEntitySchema>;

/** A relation (edge) of a session's knowledge graph; unique per session on (subject, predicate, object). */
export const knowledgeRelationSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    subject: z.string().describe("Subject entity name"),
    predicate: z.string(),
    object: z.string().describe("Object entity name"),
    confidence: z.number().min(0).max(1),
    validity: validitySchema,
    status: epistemicStatusSchema.describe(
      "What the fact rests on: asserted, derived (a proof from asserted facts), hypothetical, derived_from_hypothesis",
    ),
    conflictsWith: z
      .array(tripleSchema)
      .describe(
        "Facts this one contradicts (p against not_p, or a second value of a functional predicate): the winner of a retracted fact, or the rivals of a contested one (believed by neither side)",
      ),
    provenance: provenanceSchema,
    derivation: derivationSchema.nullable(),
  }),
);
export type KnowledgeRelation = z.infer<typeof knowledgeRelationSchema>;

/** A part of a session's graph (the relevant subgraph of a trace, or a whole export). */
export const knowledgeSubgraphSchema = lazySchema(() =>
  z.object({
    entities: z.array(knowledgeEntitySchema),
    relations: z.array(knowledgeRelationSchema),
  }),
);
export type KnowledgeSubgraph = z.infer<typeof knowledgeSubgraphSchema>;
