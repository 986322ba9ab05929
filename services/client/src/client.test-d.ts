import type { ToolCatalogue, ToolName } from "@deliberate/contracts";
import { describe, expectTypeOf, it } from "vitest";
import type { AgentIntentClient } from "./agent-intent/agent-intent-client.ts";
import type { DeliberateClient, ToolInput, ToolOutput } from "./client.ts";
import { type DeliberateClientError, isClientError } from "./errors.ts";

// Type tests (vitest typecheck, under tsc): outputs are typed per tool, wrong inputs do not compile.

declare const client: DeliberateClient;
declare const intents: AgentIntentClient;

describe("client.tools", () => {
  it("types every tool's output from the catalogue", () => {
    expectTypeOf(client.tools.reasoning_decision).returns.resolves.toEqualTypeOf<
      ToolCatalogue["reasoning_decision"]["output"]
    >();
    expectTypeOf(client.tools.reasoning_linear).returns.resolves.toEqualTypeOf<
      ToolCatalogue["reasoning_linear"]["output"]
    >();
    expectTypeOf(client.tools.reasoning_linear).returns.resolves.toHaveProperty("confidence").toEqualTypeOf<number>();
    expectTypeOf(client.tools.reasoning_linear).returns.resolves.toHaveProperty("thought_id").toEqualTypeOf<string>();
    expectTypeOf(client.tools.agent_intent_decide).returns.resolves.toHaveProperty("finish").toEqualTypeOf<boolean>();
    // Every tool, mechanically: the method's input and output are the catalogue's.
    type Methods = DeliberateClient["tools"];
    expectTypeOf<{ [Name in ToolName]: Parameters<Methods[Name]>[0] }>().toEqualTypeOf<{
      [Name in ToolName]: ToolInput<Name>;
    }>();
    expectTypeOf<{ [Name in ToolName]: Awaited<ReturnType<Methods[Name]>> }>().toEqualTypeOf<{
      [Name in ToolName]: ToolOutput<Name>;
    }>();
    expectTypeOf<keyof Methods>().toEqualTypeOf<ToolName>();
  });

  it("never types a needs_completion step as a model-backed tool's result", () => {
    expectTypeOf<ToolOutput<"reasoning_linear">>().not.toHaveProperty("resume_token");
    expectTypeOf<ToolOutput<"reasoning_tree">>().not.toHaveProperty("prompts");
  });

  it("does not compile a wrong input", () => {
    // @ts-expect-error content is required
    void client.tools.reasoning_linear({});
    // @ts-expect-error content is a string
    void client.tools.reasoning_linear({ content: 42 });
    // @ts-expect-error options is a list of names, not one
    void client.tools.reasoning_decision({ question: "Which?", options: "Postgres" });
    // @ts-expect-error an operation the tool does not have
    void client.tools.reasoning_checkpoint({ operation: "teleport", session_id: "s" });
    // @ts-expect-error no such tool
    void client.tools.reasoning_telepathy({ content: "x" });
    // @ts-expect-error call() checks the input against the named tool
    void client.call("reasoning_linear", { question: "x" });
    void client.tools.reasoning_linear({ content: "ok", confidence: 0.5 });
    void client.call("reasoning_decision", { question: "Which?", options: ["Postgres", "SQLite"] });
  });
});

describe("errors and the agent-intent client", () => {
  it("narrows error codes", () => {
    const error: unknown = new Error("x");
    if (isClientError(error, "INVALID_INPUT", "NOT_FOUND")) {
      expectTypeOf(error.code).toEqualTypeOf<"INVALID_INPUT" | "NOT_FOUND">();
      expectTypeOf(error.issues).toEqualTypeOf<Array<{ field: string; message: string }>>();
    }
    expectTypeOf<DeliberateClientError["code"]>().toExtend<string>();
    // @ts-expect-error not a code
    isClientError(error, "SOMETHING_ELSE");
  });

  it("types decisions and refuses requests of the wrong shape", () => {
    expectTypeOf(intents.agentIntent).returns.resolves.toHaveProperty("tool_name").toEqualTypeOf<string | null>();
    expectTypeOf(intents.workflowIntent).returns.resolves.toHaveProperty("next_node").toEqualTypeOf<string | null>();
    // @ts-expect-error history is a list
    void intents.agentIntent({ goal_text: "x", history: "none" });
    // @ts-expect-error agentIntentAsync needs callback_url
    void intents.agentIntentAsync({ goal_text: "x" });
  });

  it("types an async intent as accepted (a job) or queued in the outbox (no job yet)", async () => {
    const handle = await intents.agentIntentAsync({ goal_text: "x", callback_url: "https://me.example/cb" });
    expectTypeOf(handle.status).toEqualTypeOf<"accepted" | "queued">();
    if (handle.status === "queued") {
      expectTypeOf(handle.job_id).toEqualTypeOf<null>();
      expectTypeOf(handle.correlation_id).toEqualTypeOf<string>();
      expectTypeOf(handle.delivered).returns.resolves.toHaveProperty("job_id").toEqualTypeOf<string>();
    } else {
      expectTypeOf(handle.job_id).toEqualTypeOf<string>();
    }
    // Both are followed the same way.
    expectTypeOf(handle.wait).returns.resolves.toHaveProperty("finish").toEqualTypeOf<boolean>();
  });
});
