import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDeliberateClient, createHttpTransport, type DeliberateClient, DeliberateClientError, type Transport } from "../src/index.ts";
import { connectMcp } from "../src/mcp.ts";
import { reasoningAnswers, scriptedHost } from "./support/host-model.ts";
import { mcpServerMain, type ServiceProcess, serverEnvironment, startApi, startMcpHttp, temporaryDirectory } from "./support/services.ts";

// Typed tool calls end to end: the built deliberate-api (REST) and deliberate-mcp (stdio and
// Streamable HTTP), no model key anywhere, so model-backed tools are host-executed and answered
// by the host's complete(). The same assertions run over every surface.

const directory = temporaryDirectory();
const services: ServiceProcess[] = [];
const transports: Transport[] = [];
const surfaces: Record<string, Transport> = {};

beforeAll(async () => {
  const [api, mcpHttp] = await Promise.all([startApi(join(directory.path, "api.db")), startMcpHttp(join(directory.path, "mcp-http.db"))]);
  services.push(api, mcpHttp);
  surfaces["rest"] = createHttpTransport({ baseUrl: api.url, env: {} });
  surfaces["mcp-stdio"] = await connectMcp({ command: process.execPath, args: [mcpServerMain], env: await serverEnvironment(join(directory.path, "mcp-stdio.db")), stderr: "ignore" });
  surfaces["mcp-http"] = await connectMcp({ url: mcpHttp.url });
  transports.push(...Object.values(surfaces));
});
afterAll(async () => {
  await Promise.all(transports.map((transport) => transport.close()));
  await Promise.all(services.map((service) => service.stop()));
  directory.remove();
});

async function failureOf(promise: Promise<unknown>): Promise<DeliberateClientError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!DeliberateClientError.isInstance(error)) throw new Error(`expected a client error, got ${String(error)}`);
  return error;
}

describe.each(["rest", "mcp-stdio", "mcp-http"])("typed tools over %s", (surface) => {
  let client: DeliberateClient;
  const host = scriptedHost(reasoningAnswers);
  beforeAll(() => {
    client = createDeliberateClient({ transport: surfaces[surface] as Transport, complete: host });
  });

  it("completes a model-backed tool with the host's model in one call", async () => {
    const before = host.prompts.length;
    const thought = await client.tools.reasoning_linear({ content: "We must pick a database for the queue." });
    expect(thought.content).toBe("The constraint rules out option B.");
    expect(thought.confidence).toBe(0.8);
    expect(thought.session_id).toMatch(/\S/);
    expect(host.prompts.slice(before).map((prompt) => prompt.name)).toEqual(["linear_continuation"]);

    // The session lives on the server: a checkpoint of it.
    const checkpoint = await client.tools.reasoning_checkpoint({ operation: "create", session_id: thought.session_id, name: `${surface} checkpoint` });
    expect(checkpoint).toMatchObject({ session_id: thought.session_id, checkpoint_id: expect.stringMatching(/\S/) });
  });

  it("runs a computed tool with typed output and no model", async () => {
    const before = host.prompts.length;
    const decision = await client.tools.reasoning_decision({
      question: "Which database?",
      options: ["Postgres", "SQLite"],
      criteria: [
        { name: "operations", weight: 2, direction: "cost" },
        { name: "features", weight: 1 },
      ],
      scores: [
        [8, 9],
        [2, 5],
      ],
    });
    expect(decision.recommendation).toMatch(/^Choose "SQLite"/);
    expect(decision.rankings?.map((ranking) => ranking.option)).toEqual(["SQLite", "Postgres"]);
    expect(decision.scores_source).toBe("caller");
    expect(host.prompts.length).toBe(before);
  });

  it("refuses bad input before sending, naming the field; the server's own refusals keep their code", async () => {
    const local = await failureOf(client.tools.reasoning_decision({ question: "Which?", options: ["only one"] }));
    expect(local.code).toBe("INVALID_INPUT");
    expect(local.issues.map((issue) => issue.field)).toEqual(["options"]);
    expect(local.hint).toContain("nothing was sent");

    const remote = await failureOf(client.tools.reasoning_checkpoint({ operation: "list", session_id: "ses_does_not_exist" }));
    expect(remote.code).toBe("NOT_FOUND");
    expect(remote.message).toMatch(/ses_does_not_exist/);
  });

  it("has the server refuse text holding U+0000 as the client does, naming the field, writing nothing", async () => {
    const unchecked = createDeliberateClient({ transport: surfaces[surface] as Transport, complete: host, validateInput: false });
    const decision = await failureOf(unchecked.tools.reasoning_decision({ question: "Which\u0000?", options: ["a", "b\u0000"] }));
    expect(decision.code).toBe("INVALID_INPUT");
    expect(decision.issues.map((issue) => issue.field)).toEqual(["question", "options.1"]);
    expect(decision.issues[0]?.message).toContain("U+0000");

    const { session_id } = await client.tools.reasoning_linear({ content: "A session to checkpoint." });
    const checkpoint = await failureOf(unchecked.tools.reasoning_checkpoint({ operation: "create", session_id, name: "before\u0000after" }));
    expect(checkpoint.code).toBe("INVALID_INPUT");
    expect(checkpoint.issues.map((issue) => issue.field)).toEqual(["name"]);
    expect((await client.tools.reasoning_checkpoint({ operation: "list", session_id })).checkpoints).toEqual([]);
  });

  it("hands a needs_completion step to a host without complete(), and resumes it", async () => {
    const bare = createDeliberateClient({ transport: surfaces[surface] as Transport });
    const error = await failureOf(bare.tools.reasoning_linear({ content: "Hand me the prompts." }));
    expect(error.code).toBe("COMPLETION_REQUIRED");
    const step = error.needsCompletion;
    expect(step?.prompts.map((prompt) => prompt.name)).toEqual(["linear_continuation"]);
    if (!step) return;
    const resumed = (await bare.resume(step, { complete: host })) as { content: string };
    expect(resumed.content).toBe("The constraint rules out option B.");
  });
});
