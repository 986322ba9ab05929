import {
  type EndSessionResponse,
  endSessionRequestSchema,
  endSessionResponseSchema,
  endSessionTool,
  type ExecuteTaskRequestInput,
  type ExecuteTaskResponse,
  executeTaskRequestSchema,
  executeTaskResponseSchema,
  executeTaskTool,
  knowledgeGraphMethods,
  type ReasoningCapability,
  reasoningCapabilitySchema,
} from "@deliberate/contracts";
import type { z } from "zod";
import type { ToolCallOptions } from "./call-options.ts";
import { DeliberateClientError } from "./errors.ts";
import type { CallOptions, ServerDescription } from "./transport.ts";
import { checkResponse, validateWith } from "./validation.ts";

/** What the operations need of a client (`DeliberateClient` has it). */
export interface ReasoningOperationsHost {
  callMethod(
    method: string,
    params: Record<string, unknown>,
    options?: ToolCallOptions & { idempotent?: boolean },
  ): Promise<unknown>;
  callTool(name: string, input: unknown, options?: ToolCallOptions & { idempotent?: boolean }): Promise<unknown>;
  describe(options?: CallOptions): Promise<ServerDescription>;
}

/** `reasoning/endSession` as the caller writes it. */
export type EndSessionRequestInput = z.input<typeof endSessionRequestSchema>;

/** How a reasoning operation reaches the server: the protocol method (preferred) or the same operation as a tool. */
export type ReasoningVia = "method" | "tool";

export interface ReasoningCallOptions extends ToolCallOptions {
  /** Default `method`; `tool` for servers that serve only tools. */
  via?: ReasoningVia;
}

/** The server's `reasoning` capability and the description it came with. */
export interface AdvertisedReasoning {
  capability: ReasoningCapability;
  description: ServerDescription;
}

/**
 * The knowledge-graph reasoning operations of the Agentopia design
 * (`reasoning/executeTask`, `reasoning/endSession`) on any transport:
 * requests validated with the contract's schemas, responses checked against
 * them (MALFORMED_RESPONSE otherwise), needs_completion steps completed.
 */
export interface ReasoningOperations {
  /** The server's `reasoning` capability (from `initialize` over MCP, `GET /v1/capabilities` over REST), or null when it advertises none. Uncached. */
  capabilities(options?: CallOptions): Promise<AdvertisedReasoning | null>;
  executeTask(request: ExecuteTaskRequestInput, options?: ReasoningCallOptions): Promise<ExecuteTaskResponse>;
  endSession(request: EndSessionRequestInput, options?: ReasoningCallOptions): Promise<EndSessionResponse>;
}

/** How to reach an operation given what the server advertises: its method if listed, else its tool if listed, else the method. */
export function reasoningVia(capability: ReasoningCapability | null, method: string, tool: string): ReasoningVia {
  if (!capability) return "method";
  if (capability.methods.includes(method)) return "method";
  if (capability.tools.includes(tool)) return "tool";
  return "method";
}

/** The reasoning operations over a client. */
export function createReasoningOperations(client: ReasoningOperationsHost): ReasoningOperations {
  async function invoke(
    method: string,
    tool: string,
    params: Record<string, unknown>,
    options: ReasoningCallOptions,
    idempotent: boolean,
  ): Promise<unknown> {
    const { via = "method", ...rest } = options;
    return via === "method"
      ? client.callMethod(method, params, { ...rest, idempotent })
      : client.callTool(tool, params, { ...rest, idempotent });
  }
  return {
    async capabilities(options) {
      const description = await client.describe(options);
      const raw = description.capabilities["reasoning"];
      if (raw === undefined) return null;
      const parsed = reasoningCapabilitySchema.safeParse(raw);
      if (!parsed.success) {
        throw new DeliberateClientError({
          code: "HANDSHAKE_FAILED",
          message: `${description.endpoint} advertises a reasoning capability this client cannot read: ${parsed.error.issues
            .slice(0, 3)
            .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
            .join("; ")}`,
          hint: "The server and the client disagree on the contract: check that their versions match.",
        });
      }
      return { capability: parsed.data, description };
    },
    async executeTask(request, options = {}) {
      validateWith(executeTaskRequestSchema, request, "reasoning/executeTask");
      // Not repeatable: a continued session's state moves on with every call.
      const raw = await invoke(
        knowledgeGraphMethods.executeTask,
        executeTaskTool.name,
        request as Record<string, unknown>,
        options,
        false,
      );
      return checkResponse(executeTaskResponseSchema, raw, "reasoning/executeTask");
    },
    async endSession(request, options = {}) {
      validateWith(endSessionRequestSchema, request, "reasoning/endSession");
      const raw = await invoke(
        knowledgeGraphMethods.endSession,
        endSessionTool.name,
        request as Record<string, unknown>,
        options,
        true,
      );
      return checkResponse(endSessionResponseSchema, raw, "reasoning/endSession");
    },
  };
}
