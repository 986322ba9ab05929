import { DeliberateError } from "@deliberate/base";
import { parseInput } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";
import type { Store } from "@deliberate/store";
import type { InvocationUsage, ToolContext } from "../context.ts";
import type { ProgressUpdate } from "../engine-types.ts";
import type { IdGenerator } from "../ids.ts";
import { createProgressChannel, type ProgressChannel } from "../progress-channel.ts";
import type { ToolHandler } from "../tool-handler.ts";
import type { Invocation } from "./invocation.ts";

/** The handler's output, checked against the tool's schema (what the schema parses it to). */
export function checkedOutput(handler: ToolHandler, output: unknown): Record<string, unknown> {
  const checked = handler.definition.outputSchema.safeParse(output);
  if (!checked.success) {
    throw new DeliberateError({
      code: "INTERNAL",
      message: `${handler.definition.name} produced output that does not match its schema: ${checked.error.message}`,
    });
  }
  return checked.data as Record<string, unknown>;
}

/** Runs one handler on raw input (a tool another calls through `ctx.callTool`) and checks its output. */
async function runHandler(
  handler: ToolHandler,
  rawArguments: unknown,
  context: ToolContext,
): Promise<Record<string, unknown>> {
  const input = parseInput(handler.definition.inputSchema, rawArguments ?? {}, handler.definition.name);
  return checkedOutput(handler, await handler.handle(input as never, context));
}

/**
 * The context a handler (or a tool it calls through `ctx.callTool`) runs with.
 *
 * A class, so that `signal` is a getter on the prototype (the signal is made only when a handler reads it):
 * V8 builds an object literal holding a getter of its own on a slow path, about 0.5 µs each, and that garbage
 * outlived young-generation collections. What most handlers never touch (the progress channel, `callTool`,
 * `reportFailure`) is made when first read.
 */
export class HandlerContext implements ToolContext {
  private channel: ProgressChannel | undefined;
  private ownCallTool: ToolContext["callTool"] | undefined;
  private ownReportFailure: ToolContext["reportFailure"] | undefined;

  constructor(
    private readonly call: Invocation,
    private readonly progressTarget: (update: ProgressUpdate) => void,
    readonly store: Store,
    readonly ids: IdGenerator,
  ) {}

  get models(): ModelRouter {
    return this.call.models;
  }
  get settings(): ToolContext["settings"] {
    return this.call.core.settings;
  }
  get modes(): readonly string[] {
    return this.call.core.modeIds;
  }
  get clock(): ToolContext["clock"] {
    return this.call.core.clock;
  }
  get tools(): ToolContext["tools"] {
    return this.call.core.definitions;
  }
  get usage(): InvocationUsage {
    return this.call.usage;
  }
  get caller(): string | null {
    return this.call.invokeOptions.caller ?? null;
  }
  get concurrency(): number {
    return this.call.core.concurrencyNow();
  }
  get configSnapshot(): ToolContext["configSnapshot"] {
    return this.call.core.configSnapshot;
  }
  get signal(): AbortSignal {
    return this.call.signalNow();
  }

  private progressChannel(): ProgressChannel {
    this.channel ??= createProgressChannel(this.progressTarget, this.call.core.generationProgressIntervalMs);
    return this.channel;
  }
  get progress(): ToolContext["progress"] {
    return this.progressChannel().progress;
  }
  get generation(): ToolContext["generation"] {
    return this.progressChannel().generation;
  }

  // Own functions once read (not methods): handlers pass them on detached.
  get reportFailure(): ToolContext["reportFailure"] {
    this.ownReportFailure ??= (failure) => this.call.reportFailure({ code: failure.code, message: failure.message });
    return this.ownReportFailure;
  }
  get callTool(): ToolContext["callTool"] {
    this.ownCallTool ??= (name, input, callOptions) => this.runTool(name, input, callOptions);
    return this.ownCallTool;
  }

  private runTool(
    name: string,
    input: unknown,
    callOptions: Parameters<ToolContext["callTool"]>[2],
  ): Promise<Record<string, unknown>> {
    const handler = this.call.core.handlerFor(name);
    const context =
      callOptions === undefined
        ? this
        : new HandlerContext(
            this.call,
            callOptions.progress ?? this.progress,
            callOptions.store ?? this.store,
            callOptions.ids ?? this.ids,
          );
    return runHandler(handler, input, context);
  }
}
