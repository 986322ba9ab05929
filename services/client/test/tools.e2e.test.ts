import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createDeliberateClient,
  createHttpTransport,
  type DeliberateClient,
  DeliberateClientError,
  type Transport,
} from "../src/index.ts";
import { connectMcp } from "../src/mcp.ts";
import { reasoningAnswers, scriptedHost } from "./support/host-model.ts";
import { prepareHostApp, run, tsc } from "./support/host-app.ts";
import {
  mcpServerMain,
  type ServiceProcess,
  serverEnvironment,
  startApi,
  startMcpHttp,
  temporaryDirectory,
  testServerEnvironment,
} from "./support/services.ts";

// Typed tool calls end to end: the built deliberate-api (REST) and deliberate-mcp (stdio and
// Streamable HTTP), no model key anywhere, so model-backed tools are host-executed and answered
// by the host's complete(). The same assertions run over every surface. Then the packed client in
// a host app, against the same two services.

const directory = temporaryDirectory();
const services: ServiceProcess[] = [];
const transports: Transport[] = [];
const surfaces: Record<string, Transport> = {};

beforeAll(async () => {
  const [api, mcpHttp] = await Promise.all([
    startApi(join(directory.path, "api.db")),
    startMcpHttp(join(directory.path, "mcp-http.db")),
  ]);
  services.push(api, mcpHttp);
  surfaces["rest"] = createHttpTransport({ baseUrl: api.url, env: {} });
  surfaces["mcp-stdio"] = await connectMcp({
    command: process.execPath,
    args: [mcpServerMain],
    env: await serverEnvironment(join(directory.path, "mcp-stdio.db")),
    stderr: "ignore",
  });
  surfaces["mcp-http"] = await connectMcp({ url: mcpHttp.url });
  transports.push(...Object.values(surfaces));
});
afterAll(async () => {
  await Promise.all(transports.map((transport) => transport.close()));
  await Promise.all(services.map((service) => service.stop()));
  directory.remove();
});

/** What the host program reports of one coordinator scenario. */
interface CoordinatorReport {
  source: string | null;
  answer?: string | null;
  followUps?: Array<{ question: string; answer: string }>;
  answered: string[];
  events: string[];
  phases: unknown[];
  bounds: { healthCheckMs: number; livenessIntervalMs: number; unresponsiveFallbackMs: number };
  [key: string]: unknown;
}

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
    const checkpoint = await client.tools.reasoning_checkpoint({
      operation: "create",
      session_id: thought.session_id,
      name: `${surface} checkpoint`,
    });
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

    const remote = await failureOf(
      client.tools.reasoning_checkpoint({ operation: "list", session_id: "ses_does_not_exist" }),
    );
    expect(remote.code).toBe("NOT_FOUND");
    expect(remote.message).toMatch(/ses_does_not_exist/);
  });

  it("has the server refuse text holding U+0000 as the client does, naming the field, writing nothing", async () => {
    const unchecked = createDeliberateClient({
      transport: surfaces[surface] as Transport,
      complete: host,
      validateInput: false,
    });
    const decision = await failureOf(
      unchecked.tools.reasoning_decision({ question: "Which\u0000?", options: ["a", "b\u0000"] }),
    );
    expect(decision.code).toBe("INVALID_INPUT");
    expect(decision.issues.map((issue) => issue.field)).toEqual(["question", "options.1"]);
    expect(decision.issues[0]?.message).toContain("U+0000");

    const { session_id } = await client.tools.reasoning_linear({ content: "A session to checkpoint." });
    const checkpoint = await failureOf(
      unchecked.tools.reasoning_checkpoint({ operation: "create", session_id, name: "before\u0000after" }),
    );
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

// A host app consumes the published package (test/support/host-app.ts): the packed client installed into a
// fresh project outside the workspace, its host program and the README's example type-checked with tsc, and
// the program run against this file's services (and an MCP stdio server of its own).
describe("the packed client in a fresh host project", () => {
  const project = temporaryDirectory("deliberate-host-app-");
  beforeAll(() => prepareHostApp(project.path), 420_000);
  afterAll(() => project.remove());

  it("ships dist, types and the README only, with contracts bundled and zod as its one dependency", () => {
    const files = JSON.parse(readFileSync(join(project.path, "files.json"), "utf8")) as string[];
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/mcp.d.ts");
    expect(files).toContain("dist/node.d.ts");
    expect(files).toContain("README.md");
    expect(
      files.filter((file) => !file.startsWith("dist/") && file !== "README.md" && file !== "package.json"),
    ).toEqual([]);
    const installed = join(project.path, "node_modules", "@deliberate", "client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(manifest.dependencies)).toEqual(["zod"]);
    for (const file of readdirSync(join(installed, "dist")).filter(
      (name) => name.endsWith(".js") || name.endsWith(".d.ts"),
    )) {
      const text = readFileSync(join(installed, "dist", file), "utf8");
      expect(text, file).not.toMatch(/from ["']@deliberate\//);
      // The main entry runs in fetch runtimes: no Node built-ins (stdio loads the SDK's own on demand); only the
      // ./node subpath (the file outbox) imports them.
      const builtins = [...new Set(builtinModules.map((name) => name.replace(/^node:/, "")))].join("|");
      const nodeImport = new RegExp(
        `(?:from|import\\(|require\\()\\s*["'](?:node:[^"']+|(?:${builtins})(?:/[^"']*)?)["']`,
      );
      if (file.endsWith(".js") && file !== "node.js") expect(text, file).not.toMatch(nodeImport);
      if (file === "node.js") expect(text).toMatch(/from ["']node:fs\/promises["']/);
    }
  });

  it("typechecks the host program and the README example; wrong inputs do not compile", async () => {
    // One checker thread: the same diagnostics for a third less CPU than tsc's parallel checkers.
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json", "--singleThreaded"], {
      cwd: project.path,
      timeout: 280_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`tsc failed:\n${error.stdout ?? ""}${error.stderr ?? ""}`);
    });
    expect(result.stdout).toBe("");
  }, 300_000);

  it("runs against the real services over REST, MCP Streamable HTTP and MCP stdio", async () => {
    const [api, mcpHttp] = services as [ServiceProcess, ServiceProcess];
    const { stdout } = await run(process.execPath, [join(project.path, "out", "host.js")], {
      cwd: project.path,
      timeout: 120_000,
      env: {
        PATH: process.env["PATH"] ?? "",
        HOST_API_URL: api.url,
        REASONING_API_URL: api.url,
        HOST_MCP_URL: mcpHttp.url,
        HOST_MCP_MAIN: mcpServerMain,
        // DATABASE_PATH, or DATABASE_URL on the test Postgres (DELIBERATE_TEST_ENGINE_DIALECT=postgres).
        HOST_STDIO_ENV: JSON.stringify(
          await testServerEnvironment({ DATABASE_PATH: join(project.path, "mcp-stdio.db") }),
        ),
      },
    }).catch((error: unknown) => {
      // Say how the services fared: a refused connection means one of them had stopped.
      const fared = [api, mcpHttp].map(
        (service) =>
          `${service.url}: ${service.child.exitCode === null && service.child.signalCode === null ? "running" : `exited (${service.child.exitCode ?? service.child.signalCode})`}\n${service.logs.slice(-20).join("\n")}`,
      );
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\n\nThe services:\n${fared.join("\n\n")}`,
        { cause: error },
      );
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as {
      results: Array<{
        surface: string;
        linear: string;
        confidence: number;
        recommendation: string;
        invalid: string;
        outcome: { source?: string; text?: string };
      }>;
      intent: { tool: string; args: unknown };
      health: unknown;
      coordinator: Record<"refined" | "readme" | "hung" | "stalled", CoordinatorReport>;
    };
    expect(report.results.map((result) => result.surface)).toEqual(["rest", "mcp-http", "mcp-stdio"]);
    for (const result of report.results) {
      expect(result).toMatchObject({
        linear: "Option B is out.",
        confidence: 0.8,
        invalid: "options",
        outcome: { source: "reasoning", text: "Yes: Alice is an ancestor of Dave." },
      });
      expect(result.recommendation).toMatch(/SQLite/);
    }
    expect(report.intent).toEqual({ tool: "context.fts_search", args: { query: "Find auth logic" } });
    expect(report.health).toEqual({ status: "ok" });

    // The coordinator, as the packed client runs it against deliberate-api (test/support/host-app.ts).
    const { refined, readme, hung, stalled } = report.coordinator;
    // A refined answer answers the question asked: the follow-up was asked, then the original question again
    // (the synthesis), and the answer shown is the original question's.
    expect(refined).toMatchObject({
      source: "reasoning",
      answer: "Yes: Alice is an ancestor of Dave.",
      followUps: [{ question: "Is Bob an ancestor of Dave as well?", answer: "Yes: Bob is an ancestor of Dave." }],
    });
    expect(refined.answered.at(-1)).toBe(
      "Deduce the consequences of this: given that Alice is Bob's parent, is Alice an ancestor of Dave?",
    );
    expect(refined.answered).toContain("Is Bob an ancestor of Dave as well?");
    // The README's example reaches reasoning, as an abductive question, with no standard attempt first.
    expect(readme, JSON.stringify(readme)).toMatchObject({
      source: "reasoning",
      route: "direct",
      type: "abductive",
      text: expect.stringContaining("Carol mentors Dave"),
    });
    expect(readme.events).toContain("invoked");
    // A hung server: given up by the health check's deadline (the coordinator says which bound and how long it
    // was), the standard answer shown; the documented bound for a silent server is at most 10 s.
    expect(hung).toMatchObject({
      source: "standard",
      gate: { passed: false, gate: "unhealthy", phase: "health_check", deadlineMs: hung.bounds.healthCheckMs },
    });
    expect(hung.phases).toContainEqual(
      expect.objectContaining({ phase: "health_check", status: "timed_out", deadlineMs: 2_000 }),
    );
    expect(hung.bounds).toMatchObject({ healthCheckMs: 2_000, unresponsiveFallbackMs: 8_000 });
    expect(hung.bounds.unresponsiveFallbackMs).toBeLessThanOrEqual(10_000);
    // A server that stops answering mid-task: given up by the liveness watch, whatever the request's own timeout.
    expect(stalled).toMatchObject({
      source: "standard",
      failure: {
        kind: "timeout",
        phase: "liveness",
        deadlineMs: stalled.bounds.livenessIntervalMs + stalled.bounds.healthCheckMs,
      },
    });
  }, 180_000);
});
