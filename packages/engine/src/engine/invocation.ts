import type { ErrorCode } from "@deliberate/base";
import type { ModelRouter } from "@deliberate/providers";
import { type CallScope, createCallScope } from "@deliberate/store";
import { createUsage, type InvocationUsage } from "../context.ts";
import type { InvokeOptions } from "../engine-types.ts";
import { createReplayRouter, type ReplayRouter } from "../host/replay-router.ts";
import type { ToolHandler } from "../tool-handler.ts";
import { committingBeforeModelCalls } from "./committing-router.ts";
import type { EngineCore } from "./core.ts";
import type { Resumption } from "./host-resume.ts";
import type { FinishedInvocation } from "./record-invocation.ts";

/** Zero usage, shared: what a call that asked no model records (a call's own is made when a handler reads it). */
const noUsage: InvocationUsage = Object.freeze({ ...createUsage(), modes: Object.freeze([]) as unknown as string[] });

/**
 * One call's state, in one object with its methods on the prototype (not a function scope holding
 * closures): every call makes one, and while up to ~50 calls are in flight, what a call allocates
 * outlives young-generation collections and is copied and promoted, so its size is the GC's work.
 * What most calls never use (usage, the signal, replay state) is made on first use.
 */
export class Invocation {
  readonly started = performance.now();
  readonly startedAt: Date;
  /** A host-executed call's id (its resume token); replays draw their ids from it. */
  readonly callId: string | undefined;
  readonly replay: ReplayRouter | undefined;
  readonly scope: CallScope;
  reportedFailure: { code: ErrorCode; message: string } | undefined;
  private ownUsage: InvocationUsage | undefined;
  private callSignal: AbortSignal | undefined;
  /** Server-side models (not host-executed): wrapped for the handler when it first reads `models`. */
  private readonly serverModels: ModelRouter | undefined;
  private ownModels: ModelRouter | undefined;

  constructor(
    readonly core: EngineCore,
    readonly handler: ToolHandler,
    readonly toolName: string,
    readonly rawArguments: unknown,
    readonly invokeOptions: InvokeOptions,
    readonly resumption: Resumption | undefined,
  ) {
    this.startedAt = core.clock.now();
    const serverModels = invokeOptions.models ?? core.models;
    // The call's writes land together when it succeeds and not at all when it fails.
    this.scope = createCallScope(core.store);
    if (serverModels.provider === "host") {
      // A host-executed call is replayed every round: its ids come from its (future) resume token,
      // so every replay draws the same ids and prompts built from results do not change.
      this.callId = resumption?.call.id ?? core.ids.next("rt");
      this.replay = createReplayRouter({
        answers: resumption?.answers ?? {},
        answerFields: resumption?.answerFields ?? {},
      });
      this.ownModels = this.replay;
    } else {
      this.callId = undefined;
      this.replay = undefined;
      this.serverModels = serverModels;
    }
  }

  /** The models the handler calls: the replay router, or the server's committing before each model call (made on first read: a model-free call never reads it). */
  get models(): ModelRouter {
    this.ownModels ??= committingBeforeModelCalls(this.serverModels as ModelRouter, this.scope);
    return this.ownModels;
  }

  /** What the call spent on models (made when a handler first reads it). */
  get usage(): InvocationUsage {
    this.ownUsage ??= createUsage();
    return this.ownUsage;
  }

  /** Read when first needed: a caller may make its signal on demand (a model-free call never needs one). */
  signalNow(): AbortSignal {
    this.callSignal ??= this.invokeOptions.signal ?? new AbortController().signal;
    return this.callSignal;
  }

  reportFailure(failure: { code: ErrorCode; message: string }): void {
    this.reportedFailure ??= failure;
  }

  /** A host-executed call's latency runs from its first round to now, across every round. */
  latency(): number {
    const own = performance.now() - this.started;
    const resumption = this.resumption;
    return resumption ? Math.max(own, this.core.clock.now().getTime() - Date.parse(resumption.call.created_at)) : own;
  }

  /** One object per ending (no spreads): what finishInvocation records and tells the observers. */
  finished(
    operation: string | null,
    sessionId: unknown,
    failure: FinishedInvocation["failure"],
    output?: Record<string, unknown>,
  ): FinishedInvocation {
    const resumption = this.resumption;
    return {
      toolName: this.toolName,
      operation,
      sessionId,
      usage: this.ownUsage ?? noUsage,
      latencyMs: this.latency(),
      rounds: (resumption?.call.rounds ?? 0) + 1,
      startedAt: resumption?.call.created_at ?? this.startedAt.toISOString(),
      output,
      failure,
      recording: this.handler.recording,
    };
  }
}
