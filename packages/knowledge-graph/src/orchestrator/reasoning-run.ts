import type {
  ConfidenceReport,
  Derivation,
  EpistemicStatus,
  Notice,
  ReasoningTrace,
  TraceStep,
  Triple,
} from "@deliberate/contracts";
import { type ModeDefinition, runMode, type ToolContext } from "@deliberate/engine";
import { selectSubgraph, renderSubgraph, type SelectedSubgraph } from "../graph/subgraph.ts";
import type { Fact } from "../algorithms/triples.ts";
import type { WorkingGraph } from "../graph/working-graph.ts";
import type { HostTool } from "../modes/schema-parts.ts";
import type { HostRulesRepository } from "../store/repositories/host-rules.repository.ts";
import type { KnowledgeGraphRepository } from "../store/repositories/knowledge-graph.repository.ts";
import type { SessionOwnersRepository } from "../store/repositories/session-owners.repository.ts";
import type { KnowledgeGraphOptions } from "./options.ts";

/** The repositories this module adds to the store. */
export interface KnowledgeGraphRepositories {
  knowledgeGraph: KnowledgeGraphRepository;
  /** Which caller each session is bound to. */
  knowledgeGraphOwners: SessionOwnersRepository;
  /** The rules hosts gave sessions as data. */
  knowledgeGraphRules: HostRulesRepository;
}

/** The context the module's handlers run with. */
export type KnowledgeGraphContext = ToolContext<KnowledgeGraphRepositories>;

/** Thrown when a per-call safeguard is reached; the call then ends with max_iterations_reached. */
export class BudgetExhausted extends Error {
  constructor(readonly reason: string) {
    super(`Per-call limit reached: ${reason}`);
    this.name = "BudgetExhausted";
  }
}

/** What the reasoning steps found, for the trace (beyond the steps themselves). */
export interface RunFindings {
  derivations: Array<{ triple: Triple; derivation: Derivation }>;
  pathValidation: ReasoningTrace["pathValidation"];
  hypotheses: ReasoningTrace["hypotheses"];
  selfConsistency: ReasoningTrace["selfConsistency"];
  subQuestions: ReasoningTrace["subQuestions"];
  thoughts: ReasoningTrace["thoughts"];
  /** Graph keys the answer and its checks rest on (shown in the trace's subgraph). */
  relevantEntities: Set<string>;
  /** The strongest thing the reasoning steps established in code, for the confidence's basis. */
  basis: AnswerBasis | null;
  /** The work forward chaining did in this call (null when no rules were applied). */
  chaining: ReasoningTrace["budget"]["chaining"];
}

/** What a reasoning step established in code, and what that rests on. */
export type AnswerBasis = NonNullable<ConfidenceReport["basis"]> & { restsOn: EpistemicStatus | null };

export interface RunInput {
  taskId: string;
  goal: string;
  tools: readonly HostTool[];
  premises: string;
  maxSteps: number | null;
  options: KnowledgeGraphOptions;
  /** Trace steps and findings carried over from the earlier calls of a pending task. */
  priorTrace: readonly TraceStep[];
  priorFindings: readonly string[];
}

/**
 * The state of one executeTask call: the working graph, the per-call budget
 * (iterations, model calls, graph growth), the trace and what the steps
 * found. Every model call goes through `ask`, so the budget counts it.
 */
export class ReasoningRun {
  readonly trace: TraceStep[];
  /** Lines for the answer prompt: what the steps established. */
  readonly findings: string[];
  readonly notices: Notice[] = [];
  readonly found: RunFindings = {
    derivations: [],
    pathValidation: null,
    hypotheses: [],
    selfConsistency: null,
    subQuestions: [],
    thoughts: [],
    relevantEntities: new Set(),
    basis: null,
    chaining: null,
  };
  iterations = 0;
  modelCalls = 0;
  /** Why the budget ran out, once it has. */
  exhausted: string | null = null;
  readonly maxIterations: number;

  constructor(
    readonly context: KnowledgeGraphContext,
    readonly graph: WorkingGraph,
    readonly input: RunInput,
  ) {
    this.trace = [...input.priorTrace];
    this.findings = [...input.priorFindings];
    this.maxIterations = Math.min(input.maxSteps ?? input.options.maxIterations, input.options.maxIterations);
  }

  get options(): KnowledgeGraphOptions {
    return this.input.options;
  }

  /** Asks a mode, counting the call against the budget. */
  async ask<Input, Output>(mode: ModeDefinition<Input, Output>, input: Input): Promise<Output> {
    // A spent growth budget stops the call before its next model call (the graph would be incomplete).
    if (this.exhausted !== null) throw new BudgetExhausted(this.exhausted);
    if (this.modelCalls >= this.options.maxModelCalls)
      throw this.exhaust(`${this.options.maxModelCalls} model calls per call`);
    this.modelCalls += 1;
    return runMode(this.context, mode, input);
  }

  /** Keeps `basis` when it is the strongest established so far. */
  establish(basis: AnswerBasis): void {
    if (this.found.basis === null || basis.score >= this.found.basis.score) this.found.basis = basis;
  }

  /** Starts a reasoning step, counting it against the iteration budget. */
  step(label: string): void {
    if (this.exhausted !== null) throw new BudgetExhausted(this.exhausted);
    if (this.iterations >= this.maxIterations) throw this.exhaust(`${this.maxIterations} reasoning steps per call`);
    this.iterations += 1;
    this.context.progress({ progress: this.iterations, total: this.maxIterations, message: label });
  }

  /** Elements the host gave as data this call: not counted against the growth budget. */
  private exempt = 0;

  /** New elements this call may still add (the host's own facts do not count). */
  remainingGrowth(): number {
    return Math.max(0, this.options.maxGraphGrowth - (this.graph.growth - this.exempt));
  }

  /** Exempts `count` elements just added from the host's data from the growth budget. */
  exemptGrowth(count: number): void {
    this.exempt += count;
  }

  /** Marks the growth budget as spent: the current step finishes, the next one stops the call. */
  growthCapped(what: string): void {
    this.exhausted ??= `${this.options.maxGraphGrowth} new graph elements per call`;
    this.notices.push({ field: null, message: `Graph growth limit reached while ${what}; the rest was not added.` });
  }

  exhaust(reason: string): BudgetExhausted {
    this.exhausted ??= reason;
    return new BudgetExhausted(reason);
  }

  /** The bounded part of the graph a prompt shows, as text, with the names the answer may cite. */
  focus(query: string, include: readonly string[] = []): { subgraph: SelectedSubgraph; text: string; names: string[] } {
    const subgraph = selectSubgraph(this.graph, { query, include });
    return {
      subgraph,
      text: renderSubgraph(this.graph, subgraph),
      names: subgraph.entities.map((entity) => entity.name),
    };
  }

  /** Records a trace step with what the graph gained since `mark`, and reports the contradictions the step met. */
  record(kind: string, summary: string, mark: number): void {
    const added = this.graph.addedSince(mark);
    this.trace.push({
      index: this.trace.length,
      kind,
      summary,
      addedEntities: added.entities,
      addedRelations: added.relations,
    });
    this.reportConflicts();
  }

  /** Each contradiction met since the last report becomes a notice naming both sides and how code settled it. */
  reportConflicts(): void {
    const shown = (fact: Fact, status: string) =>
      `'${this.graph.nameOf(fact.subject)} ${fact.predicate} ${this.graph.nameOf(fact.object)}' (${status})`;
    for (const event of this.graph.drainConflicts()) {
      const against = event.against.map((item) => shown(item.fact, item.status)).join(", ");
      const verdict =
        event.outcome === "refused"
          ? "was refused: it contradicts the stronger"
          : event.outcome === "retracted"
            ? "replaced the weaker, now retracted,"
            : "is contested: neither it nor the equally strong contradicting fact is believed until one is confirmed:";
      this.notices.push({
        field: null,
        message: `Contradiction: ${shown(event.fact, event.status)} ${verdict} ${against}.`,
      });
    }
  }

  /** The findings as prompt text (bounded to the most recent lines). */
  findingsText(): string {
    return this.findings.slice(-40).join("\n");
  }
}
