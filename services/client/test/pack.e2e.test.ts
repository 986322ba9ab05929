import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, sep } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientRoot } from "./support/global-setup.ts";
import { mcpServerMain, type ServiceProcess, startApi, startMcpHttp, temporaryDirectory, testServerEnvironment } from "./support/services.ts";

// A host app consumes the published package: `pnpm pack` the client, install the tarball into a fresh
// project outside the workspace (zod, the MCP SDK and @types/node from the registry), typecheck a
// host program and the README's example against the package with tsc, then run the program against
// the real services. Bounded: npm gets 4 minutes (one retry), everything else runs locally.

const run = promisify(execFile);
const project = temporaryDirectory("deliberate-host-app-");
const services: ServiceProcess[] = [];
const require = createRequire(import.meta.url);
// The host's compiler: TypeScript 7 (the native one, a devDependency under the alias typescript-native).
const tsc = join(require.resolve("typescript-native/package.json").replace(/package\.json$/, ""), "bin", "tsc");
const mcpSdkVersion = (JSON.parse(readFileSync(join(clientRoot, "package.json"), "utf8")) as { peerDependencies: Record<string, string> }).peerDependencies["@modelcontextprotocol/client"];
// The workspace's pnpm settings (npm_config_nodedir for better-sqlite3) are not npm's: leave them out.
const npmEnv: NodeJS.ProcessEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
delete npmEnv["npm_config_nodedir"];

/** The host program: every part of the package, over REST, MCP stdio and MCP Streamable HTTP. */
const hostProgram = `
import {
  createAgentIntentClient,
  createDeliberateClient,
  createHttpTransport,
  createReasoningCoordinator,
  isClientError,
  type PendingPrompt,
  type Transport,
} from "@deliberate/client";
import { connectMcp } from "@deliberate/client/mcp";

const world = {
  entities: ["Alice", "Bob", "Carol", "Dave"].map((name) => ({ name, type: "person", observations: [] as string[] })),
  relations: [["Alice", "Bob"], ["Bob", "Carol"], ["Carol", "Dave"]].map(([subject, object]) => ({ subject, predicate: "parent_of", object, confidence: 1 })),
};
const rules = {
  rules: [
    { name: "parent", statement: "A parent is an ancestor.", conditions: [{ subject: "?x", predicate: "parent_of", object: "?y" }], conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }] },
    { name: "transitive", statement: "Ancestry is transitive.", conditions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }, { subject: "?y", predicate: "ancestor_of", object: "?z" }], conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?z" }] },
  ],
  query: { kind: "path", from: "Alice", to: "Dave", predicates: ["ancestor_of"] },
};

// The host's own model: here, canned answers by prompt name.
function complete(prompt: PendingPrompt): unknown {
  switch (prompt.name) {
    case "linear_continuation": return { content: "Option B is out.", confidence: 0.8, next_step: "Check option A." };
    case "knowledge_graph_extraction": return world;
    case "knowledge_graph_rules": return rules;
    case "knowledge_graph_answer": return { reasoning: ["By the rules."], answer: "Yes: Alice is an ancestor of Dave.", answerKey: "yes", confidence: 0.95, supportingFacts: [{ subject: "Alice", predicate: "ancestor_of", object: "Dave" }] };
    case "knowledge_graph_resolution": return { decisions: [] };
    default: throw new Error("no answer for " + prompt.name);
  }
}

async function exercise(surface: string, transport: Transport) {
  const client = createDeliberateClient({ transport, complete });
  const thought = await client.tools.reasoning_linear({ content: "Pick a queue." });
  const confidence: number = thought.confidence;
  const decision = await client.tools.reasoning_decision({
    question: "Which database?", options: ["Postgres", "SQLite"],
    criteria: [{ name: "operations", weight: 1, direction: "cost" }], scores: [[8], [2]],
  });
  let invalid = "";
  try {
    await client.tools.reasoning_decision({ question: "Which?", options: ["only"] });
  } catch (error) {
    if (isClientError(error, "INVALID_INPUT")) invalid = error.issues.map((issue) => issue.field).join(",");
  }
  const coordinator = createReasoningCoordinator({ client, standard: async () => ({ text: "standard" }) });
  const outcome = await coordinator.handle({ query: "Deduce the consequences of this: given that Alice is Bob's parent, is Alice an ancestor of Dave?" });
  await client.close();
  return { surface, linear: thought.content, confidence, recommendation: decision.recommendation, invalid, outcome: outcome.kind === "answer" ? { source: outcome.source, text: outcome.text } : { kind: outcome.kind } };
}

const results = [];
results.push(await exercise("rest", createHttpTransport({ baseUrl: process.env["HOST_API_URL"] })));
results.push(await exercise("mcp-http", await connectMcp({ url: process.env["HOST_MCP_URL"] ?? "" })));
results.push(await exercise("mcp-stdio", await connectMcp({ command: process.execPath, args: [process.env["HOST_MCP_MAIN"] ?? ""], env: JSON.parse(process.env["HOST_STDIO_ENV"] ?? "{}") as Record<string, string>, stderr: "ignore" })));
const intents = createAgentIntentClient(); // REASONING_API_URL from the environment
const intent = await intents.agentIntent({ goal_text: "Find auth logic", tools: [{ name: "context.fts_search", input_schema: { type: "object", properties: { query: { type: "string" } }, required: ["query"] } }] });
console.log(JSON.stringify({ results, intent: { tool: intent.tool_name, args: intent.tool_args }, health: await intents.health() }));
`;

/** Lines that must not compile: the package's types bite in a host app too. */
const wrongProgram = `
import { createDeliberateClient, createHttpTransport } from "@deliberate/client";
const client = createDeliberateClient({ transport: createHttpTransport() });
// @ts-expect-error content is required
void client.tools.reasoning_linear({});
// @ts-expect-error options is a list
void client.tools.reasoning_decision({ question: "Which?", options: "Postgres" });
// @ts-expect-error no such tool
void client.tools.reasoning_telepathy({});
export async function typed(): Promise<string> {
  const thought = await client.tools.reasoning_linear({ content: "x" });
  // @ts-expect-error confidence is a number
  const wrong: string = thought.confidence;
  return wrong + thought.content;
}
`;

/** The README's host example, with the host's own functions declared. */
function readmeExample(): string {
  const readme = readFileSync(join(clientRoot, "README.md"), "utf8");
  const block = /<!-- host-example -->\s*```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no ```ts block after <!-- host-example -->");
  const declarations = [
    "declare function myModel(system: string, user: string, schema: Record<string, unknown>): Promise<unknown>;",
    "declare function myStandardChat(query: string): Promise<{ text: string; confidence?: number }>;",
    "declare function runTool(name: string, args: Record<string, unknown>): Promise<unknown>;",
    "declare function askMyCritic(question: string, answer: string): Promise<string | null>;",
    "declare function show(text: string, details?: string): void;",
  ].join("\n");
  return `${declarations}\n${block}\nexport {};\n`;
}

/**
 * The host compiles with skipLibCheck off, so that an error in the package's own declarations shows. The
 * declarations of what the host installed besides it (the MCP SDK, zod, @types/node) are not this package's:
 * checking them took two thirds of tsc's time. `// @ts-nocheck` leaves them out of checking, one file at a
 * time; the package's own files (node_modules/@deliberate/client) are checked in full.
 */
function skipCheckingThirdPartyDeclarations(nodeModules: string): void {
  const ownPackage = join(nodeModules, "@deliberate", "client") + sep;
  for (const entry of readdirSync(nodeModules, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !/\.d\.[cm]?ts$/.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    if (file.startsWith(ownPackage)) continue;
    writeFileSync(file, `// @ts-nocheck\n${readFileSync(file, "utf8")}`);
  }
}

async function npm(args: string[]): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await run("npm", args, { cwd: project.path, env: npmEnv, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
      return;
    } catch (error) {
      if (attempt >= 1) throw error;
    }
  }
}

beforeAll(async () => {
  const [api, mcpHttp] = await Promise.all([startApi(join(project.path, "api.db")), startMcpHttp(join(project.path, "mcp-http.db"))]);
  services.push(api, mcpHttp);
  // pnpm packs what `pnpm publish` (and changesets in this pnpm workspace) publishes: workspace: ranges
  // replaced by versions, publishConfig applied.
  const packed = await run("pnpm", ["pack", "--json", "--pack-destination", project.path], { cwd: clientRoot, env: npmEnv, timeout: 120_000 });
  const tarball = JSON.parse(packed.stdout) as { filename?: string; files?: Array<{ path: string }> };
  if (!tarball.filename || !tarball.files) throw new Error(`pnpm pack said: ${packed.stdout}`);
  writeFileSync(join(project.path, "files.json"), JSON.stringify(tarball.files.map((file) => file.path)));
  writeFileSync(join(project.path, "package.json"), JSON.stringify({ name: "host-app", private: true, type: "module" }));
  await npm(["install", "--no-package-lock", tarball.filename, `@modelcontextprotocol/client@${mcpSdkVersion}`, "@types/node@^20.19.0"]);
  skipCheckingThirdPartyDeclarations(join(project.path, "node_modules"));
  mkdirSync(join(project.path, "src"));
  writeFileSync(join(project.path, "src", "host.ts"), hostProgram);
  writeFileSync(join(project.path, "src", "wrong.ts"), wrongProgram);
  writeFileSync(join(project.path, "src", "readme-example.ts"), readmeExample());
  writeFileSync(
    join(project.path, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noUncheckedIndexedAccess: true, outDir: "out", rootDir: "src", types: ["node"], skipLibCheck: false, skipDefaultLibCheck: true },
      include: ["src"],
    }),
  );
}, 420_000);

afterAll(async () => {
  await Promise.all(services.map((service) => service.stop()));
  project.remove();
});

describe("the packed client in a fresh host project", () => {
  it("ships dist, types and the README only, with contracts bundled and zod as its one dependency", () => {
    const files = JSON.parse(readFileSync(join(project.path, "files.json"), "utf8")) as string[];
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/mcp.d.ts");
    expect(files).toContain("README.md");
    expect(files.filter((file) => !file.startsWith("dist/") && file !== "README.md" && file !== "package.json")).toEqual([]);
    const installed = join(project.path, "node_modules", "@deliberate", "client");
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).toEqual(["zod"]);
    for (const file of readdirSync(join(installed, "dist")).filter((name) => name.endsWith(".js") || name.endsWith(".d.ts"))) {
      const text = readFileSync(join(installed, "dist", file), "utf8");
      expect(text, file).not.toMatch(/from ["']@deliberate\//);
      // The main entry runs in fetch runtimes: no Node built-ins (stdio loads the SDK's own on demand).
      if (file.endsWith(".js")) expect(text, file).not.toMatch(/from ["']node:|require\(["']node:/);
    }
  });

  it("typechecks the host program and the README example; wrong inputs do not compile", async () => {
    // One checker thread: the same diagnostics for a third less CPU than tsc's parallel checkers.
    const result = await run(process.execPath, [tsc, "-p", "tsconfig.json", "--singleThreaded"], { cwd: project.path, timeout: 280_000 }).catch((error: { stdout?: string; stderr?: string }) => {
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
        HOST_STDIO_ENV: JSON.stringify(await testServerEnvironment({ DATABASE_PATH: join(project.path, "mcp-stdio.db") })),
      },
    }).catch((error: unknown) => {
      // Say how the services fared: a refused connection means one of them had stopped.
      const fared = [api, mcpHttp].map((service) => `${service.url}: ${service.child.exitCode === null && service.child.signalCode === null ? "running" : `exited (${service.child.exitCode ?? service.child.signalCode})`}\n${service.logs.slice(-20).join("\n")}`);
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n\nThe services:\n${fared.join("\n\n")}`, { cause: error });
    });
    const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as {
      results: Array<{ surface: string; linear: string; confidence: number; recommendation: string; invalid: string; outcome: { source?: string; text?: string } }>;
      intent: { tool: string; args: unknown };
      health: unknown;
    };
    expect(report.results.map((result) => result.surface)).toEqual(["rest", "mcp-http", "mcp-stdio"]);
    for (const result of report.results) {
      expect(result).toMatchObject({ linear: "Option B is out.", confidence: 0.8, invalid: "options", outcome: { source: "reasoning", text: "Yes: Alice is an ancestor of Dave." } });
      expect(result.recommendation).toMatch(/SQLite/);
    }
    expect(report.intent).toEqual({ tool: "context.fts_search", args: { query: "Find auth logic" } });
    expect(report.health).toEqual({ status: "ok" });
  }, 180_000);
});
