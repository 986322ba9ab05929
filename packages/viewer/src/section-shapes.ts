/**
 * The shapes the viewer expects for module sections that are not in the
 * engine's record yet. A module's `sessionSections` entry named `dialog`,
 * `knowledge_graph` or `workflow` returns this shape, and the viewer draws it.
 * Fields marked optional may be left out; unknown extra fields are ignored.
 */

/** One message of a dialog. */
export interface DialogExchange {
  /** 0-based iteration (round) the exchange belongs to. */
  iteration: number;
  /** Agent name, e.g. `think` or `dialog`. */
  agent: string;
  /** e.g. `initiator` / `responder`. */
  role?: string;
  content: string;
  /** Quality the exchange rated, 0..1, when it rated one. */
  quality?: number | null;
  input_tokens?: number;
  output_tokens?: number;
  created_at?: string;
}

/** Section `dialog`: one multi-agent dialog's transcript and its quality per iteration. */
export interface DialogSection {
  id?: string;
  topic: string;
  /** e.g. `in_progress`, `threshold_met`, `max_iterations`, `completed`. */
  status: string;
  quality_threshold?: number | null;
  max_iterations?: number | null;
  agents?: Array<{ name: string; role?: string }>;
  /** Quality after each iteration, in order: the trajectory drawn as a line. */
  iterations: Array<{ iteration: number; quality: number | null }>;
  exchanges: DialogExchange[];
  /** The synthesised result, once there is one. */
  result?: string | null;
}

/** Where a knowledge-graph element came from. */
export interface KnowledgeProvenance {
  /** `asserted` (given), `extracted` (read from text by a model), `derived` (computed by a rule), `hypothesized` … */
  kind: string;
  /** Free text: which input, task or step produced it. */
  source?: string;
  /** Present on derived elements: the rule and the ids of the relations it was derived from. */
  derivation?: { rule: string; premises: string[] } | null;
}

export interface KnowledgeEntity {
  id: string;
  name: string;
  type?: string;
  provenance?: KnowledgeProvenance;
}

export interface KnowledgeRelation {
  id: string;
  /** Entity id the relation starts from. */
  source: string;
  /** Entity id the relation points to. */
  target: string;
  predicate: string;
  confidence?: number | null;
  provenance?: KnowledgeProvenance;
}

/** Section `knowledge_graph`: entities and relations, each with its provenance. Derived ones are highlighted. */
export interface KnowledgeGraphSection {
  entities: KnowledgeEntity[];
  relations: KnowledgeRelation[];
}

/** One step of a guided workflow as the viewer shows it. */
export interface WorkflowStepShape {
  id: string;
  title: string;
  expecting?: string;
  /** Key of the step's answer in `answers`. */
  save_as: string;
}

/** Section `workflow`: the guided-workflow runs of a session, with their step lists. */
export interface WorkflowSection {
  runs: Array<{
    id: string;
    workflow: string;
    title?: string;
    status: "in_progress" | "complete";
    current_step: string | null;
    answers: Record<string, string>;
    steps: WorkflowStepShape[];
    created_at?: string;
    updated_at?: string;
  }>;
}
