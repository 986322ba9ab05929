import {
  type NeedsCompletion,
  type PendingPrompt,
  type ToolCatalogue,
  type ToolDefinition,
  type ToolName,
  toolCatalogue,
} from "@deliberate/contracts";
import type { CompleteFunction, ToolCallOptions } from "./call-options.ts";
import { type CompletionSettings, driveCompletion } from "./completion-driver.ts";
import { DeliberateClientError, toClientError } from "./errors.ts";
import { createReasoningOperations, type ReasoningOperations } from "./reasoning-operations.ts";
import type { CallOptions, ServerDescription, Transport } from "./transport.ts";
import { checkResponse, validateWith } from "./validation.ts";

/** A tool's input as the caller writes it (defaults optional, loose numbers accepted). */
export type ToolInput<Name extends ToolName> = ToolCatalogue[Name]["input"];
/** A tool's final output (never a `needs_completion` step: the client completes those). */
export type ToolOutput<Name extends ToolName> = ToolCatalogue[Name]["output"];

/** One typed method per tool of the catalogue: `client.tools.reasoning_decision(input)`. */
export type ToolMethods = {
  [Name in ToolName]: (input: ToolInput<Name>, options?: ToolCallOptions) => Promise<ToolOutput<Name>>;
};

export interface DeliberateClientOptions {
  /** REST (`createHttpTransport`) or MCP (`createMcpTransport` / `connectMcp` from `@deliberate/client/mcp`). */
  transport: Transport;
  /**
   * Answers the prompts of `needs_completion` steps (servers with no model of
   * their own), so a call returns the final result. Without it such a call
   * fails with COMPLETION_REQUIRED carrying the step.
   */
  complete?: CompleteFunction;
  /** Most needs_completion steps one call may take; default 10. */
  maxCompletionRounds?: number;
  /** Prompts of one step answered at once; default 4. */
  completionConcurrency?: number;
  /** Validate input with the tool's schema before sending (INVALID_INPUT naming each field); default true. */
  validateInput?: boolean;
  /** Validate the final output with the tool's schema (MALFORMED_RESPONSE otherwise); default true. */
  validateOutput?: boolean;
}

/** A typed client of every Deliberate tool, the same over REST and MCP. */
export interface DeliberateClient {
  /** One typed method per tool: `client.tools.reasoning_linear({ content })`. */
  readonly tools: ToolMethods;
  readonly transport: Transport;
  /** Calls a tool of the catalogue by name; the same as `tools[name](input)`. */
  call<Name extends ToolName>(name: Name, input: ToolInput<Name>, options?: ToolCallOptions): Promise<ToolOutput<Name>>;
  /** Calls a tool of the catalogue and returns a `needs_completion` step as is, for hosts that drive completion themselves. */
  callRaw<Name extends ToolName>(
    name: Name,
    input: ToolInput<Name>,
    options?: CallOptions,
  ): Promise<ToolOutput<Name> | NeedsCompletion>;
  /** Calls any tool the server has (e.g. a plugged-in module's), unvalidated and untyped; completes needs_completion steps. */
  callTool(name: string, input: unknown, options?: ToolCallOptions & { idempotent?: boolean }): Promise<unknown>;
  /** Calls a protocol method (e.g. `reasoning/executeTask`), completing needs_completion steps; untyped. */
  callMethod(
    method: string,
    params: Record<string, unknown>,
    options?: ToolCallOptions & { idempotent?: boolean },
  ): Promise<unknown>;
  /** Answers a `needs_completion` step (with `complete`) and submits it until the final output. */
  resume(step: NeedsCompletion, options?: ToolCallOptions): Promise<unknown>;
  /** The knowledge-graph reasoning operations (`reasoning/executeTask`, `reasoning/endSession`) and the server's `reasoning` capability. */
  readonly reasoning: ReasoningOperations;
  /** Who the server is and what it advertises (uncached). */
  describe(options?: CallOptions): Promise<ServerDescription>;
  /** Closes the transport. */
  close(): Promise<void>;
}

const catalogue = toolCatalogue as unknown as Record<ToolName, ToolDefinition>;

/** Whether repeating a call to this tool is harmless (so it may be retried after a dropped connection). */
export function isRepeatable(definition: ToolDefinition): boolean {
  return definition.annotations.readOnlyHint || definition.annotations.idempotentHint;
}

/**
 * Creates the typed client. Every tool of `@deliberate/contracts`'
 * catalogue is a method of `client.tools`, typed from `ToolCatalogue`; input is
 * validated with the tool's own schema before it is sent; a `needs_completion`
 * step is answered with `complete` and submitted, so one call returns the
 * final output; failures are `DeliberateClientError`s with a stable `code`.
 *
 * ```ts
 * const client = createDeliberateClient({ transport: createHttpTransport({ baseUrl }), complete });
 * const ranked = await client.tools.reasoning_decision({ question: "Which database?", options: ["Postgres", "SQLite"] });
 * ```
 */
export function createDeliberateClient(options: DeliberateClientOptions): DeliberateClient {
  const { transport } = options;
  const completion: CompletionSettings = {
    transport,
    complete: options.complete,
    maxRounds: options.maxCompletionRounds ?? 10,
    concurrency: options.completionConcurrency ?? 4,
  };
  /** Answers steps until the output is final (see {@link driveCompletion}). */
  const drive = (first: unknown, callOptions: ToolCallOptions) => driveCompletion(completion, first, callOptions);
  const validateInput = options.validateInput ?? true;
  const validateOutput = options.validateOutput ?? true;

  function definitionOf(name: ToolName): ToolDefinition {
    const definition = catalogue[name];
    if (!definition) {
      throw new DeliberateClientError({
        code: "CAPABILITY_MISSING",
        message: `${String(name)} is not a tool of this client's catalogue.`,
        hint: "Use callTool(name, input) for tools the catalogue does not know.",
      });
    }
    return definition;
  }

  async function callRaw(name: ToolName, input: unknown, callOptions: CallOptions = {}): Promise<unknown> {
    const definition = definitionOf(name);
    if (validateInput) validateWith(definition.inputSchema, input ?? {}, name);
    try {
      return await transport.callTool(name, input ?? {}, { ...callOptions, idempotent: isRepeatable(definition) });
    } catch (error) {
      throw toClientError(error, name);
    }
  }

  async function call(name: ToolName, input: unknown, callOptions: ToolCallOptions = {}): Promise<unknown> {
    const definition = definitionOf(name);
    const first = await callRaw(name, input, callOptions);
    const output = await drive(first, callOptions).catch((error: unknown) => {
      throw toClientError(error, name);
    });
    return validateOutput ? checkResponse(definition.outputSchema, output, name) : output;
  }

  const tools = Object.fromEntries(
    (Object.keys(catalogue) as ToolName[]).map((name) => [
      name,
      (input: unknown, callOptions?: ToolCallOptions) => call(name, input, callOptions),
    ]),
  ) as unknown as ToolMethods;

  const client: DeliberateClient = {
    tools,
    transport,
    call: call as DeliberateClient["call"],
    callRaw: callRaw as DeliberateClient["callRaw"],
    async callTool(name, input, callOptions = {}) {
      const { idempotent, ...rest } = callOptions;
      try {
        return await drive(
          await transport.callTool(name, input ?? {}, { ...rest, idempotent: idempotent ?? false }),
          rest,
        );
      } catch (error) {
        throw toClientError(error, name);
      }
    },
    async callMethod(method, params, callOptions = {}) {
      const { idempotent, ...rest } = callOptions;
      try {
        return await drive(
          await transport.callMethod(method, params, { ...rest, idempotent: idempotent ?? false }),
          rest,
        );
      } catch (error) {
        throw toClientError(error, method);
      }
    },
    async resume(step, callOptions = {}) {
      try {
        return await drive(step, callOptions);
      } catch (error) {
        throw toClientError(error, step.tool);
      }
    },
    get reasoning() {
      return reasoning;
    },
    describe: (callOptions) => transport.describe(callOptions),
    close: () => transport.close(),
  };
  const reasoning = createReasoningOperations(client);
  return client;
}

export type { CompleteFunction, CompletionContext, ToolCallOptions } from "./call-options.ts";
export type { NeedsCompletion, PendingPrompt, ToolName };
