import { execFile } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, sep } from "node:path";
import { promisify } from "node:util";
import { clientRoot } from "./global-setup.ts";

// A host app consuming the published package (the packed-client tests in tools.e2e.test.ts): `pnpm pack`
// the client, install the tarball into a fresh project outside the workspace (zod, the MCP SDK and
// @types/node from the registry), and write a host program, lines that must not compile and the README's
// example, for tsc. Bounded: npm gets 4 minutes (one retry), everything else runs locally.

export const run = promisify(execFile);
const require = createRequire(import.meta.url);
// The host's compiler: TypeScript 7 (the native one, a devDependency under the alias typescript-native).
export const tsc = join(require.resolve("typescript-native/package.json").replace(/package\.json$/, ""), "bin", "tsc");
const mcpSdkVersion = (
  JSON.parse(readFileSync(join(clientRoot, "package.json"), "utf8")) as { peerDependencies: Record<string, string> }
).peerDependencies["@modelcontextprotocol/client"];
// The workspace's pnpm settings (npm_config_nodedir for better-sqlite3) are not npm's: leave them out.
const npmEnv: NodeJS.ProcessEnv = {
  ...process.env,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
delete npmEnv["npm_config_nodedir"];

/** The host program: every part of the package, over REST, MCP stdio and MCP Streamable HTTP. */
const hostProgram = `
import {
  type CoordinatorOutcome,
  createAgentIntentClient,
  createDeliberateClient,
  createHttpTransport,
  createReasoningCoordinator,
  isClientError,
  type PendingPrompt,
  type Transport,
} from "@deliberate/client";
import { connectMcp } from "@deliberate/client/mcp";
import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer as createNetServer, type Socket } from "node:net";

const world = {
  entities: ["Alice", "Bob", "Carol", "Dave"].map((name) => ({ name, type: "person", observations: [] as string[] })),
  relations: [["Alice", "Bob"], ["Bob", "Carol"], ["Carol", "Dave"]].map(([subject, object]) => ({ subject, predicate: "parent_of", object, confidence: 1 })),
};
const rules = {
  rules: [
    { name: "parent", statement: "A parent is an ancestor.", conditions: [{ subject: "?x", predicate: "parent_of", object: "?y" }], different: [], conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }] },
    { name: "transitive", statement: "Ancestry is transitive.", conditions: [{ subject: "?x", predicate: "ancestor_of", object: "?y" }, { subject: "?y", predicate: "ancestor_of", object: "?z" }], different: [], conclusions: [{ subject: "?x", predicate: "ancestor_of", object: "?z" }] },
  ],
  query: { kind: "path", from: "Alice", to: "Dave", predicates: ["ancestor_of"] },
};

// The host's own model: here, canned answers by prompt name, each shaped as its prompt's schema asks (the server
// refuses an answer that does not match: e.g. every rule lists its inequalities under different, [] when none; a
// hypothesis's additions give each end's type).
function complete(prompt: PendingPrompt): unknown {
  switch (prompt.name) {
    case "linear_continuation": return { content: "Option B is out.", confidence: 0.8, next_step: "Check option A." };
    case "knowledge_graph_extraction": return world;
    case "knowledge_graph_rules": return rules;
    case "knowledge_graph_answer": {
      // Answers the question the prompt asks: the follow-up's, or the one the user asked.
      const question = /^Question: (.*)$/m.exec(prompt.user)?.[1] ?? "";
      answered.push(question);
      if (question === followUp) return { reasoning: ["Bob is Carol's parent, Carol is Dave's."], answer: "Yes: Bob is an ancestor of Dave.", answerKey: "yes", confidence: 0.9, supportingFacts: [{ subject: "Bob", predicate: "parent_of", object: "Carol" }] };
      if (question.startsWith("Why did")) return { reasoning: ["The graph holds one explanation."], answer: "Most likely: Carol mentors Dave.", answerKey: "carol", confidence: 0.6, supportingFacts: [{ subject: "Carol", predicate: "parent_of", object: "Dave" }] };
      return { reasoning: ["By the rules."], answer: "Yes: Alice is an ancestor of Dave.", answerKey: "yes", confidence: 0.95, supportingFacts: [{ subject: "Alice", predicate: "ancestor_of", object: "Dave" }] };
    }
    case "knowledge_graph_hypotheses": return {
      observations: [{ description: "Nobody is recorded as Dave's mentor", entities: ["Dave"] }],
      hypotheses: [
        { name: "Carol mentors Dave", explanation: "She is his parent.", additions: [{ subject: "Carol", subjectType: "person", predicate: "mentors", object: "Dave", objectType: "person" }] },
        { name: "Bob mentors Dave", explanation: "He is his grandparent.", additions: [{ subject: "Bob", subjectType: "person", predicate: "mentors", object: "Dave", objectType: "person" }] },
      ],
    };
    // One decision per pair, under the pair's id: this host never merges names.
    case "knowledge_graph_resolution": return { decisions: Object.fromEntries([...prompt.user.matchAll(/^(pair_\\d+):/gm)].map(([, id]) => [id, { same: false, reason: "Different people." }])) };
    default: throw new Error("no answer for " + prompt.name);
  }
}
const followUp = "Is Bob an ancestor of Dave as well?";
const original = "Deduce the consequences of this: given that Alice is Bob's parent, is Alice an ancestor of Dave?";
const readmeQuery = "Why did last night's deploy fail?";
const answered: string[] = [];

/** The coordinator end to end over REST: a refined answer, the README's example, a hung server, a server that hangs mid-task. */
async function coordinatorScenarios(apiUrl: string) {
  const client = createDeliberateClient({ transport: createHttpTransport({ baseUrl: apiUrl }), complete });
  const refining = createReasoningCoordinator({
    client,
    standard: async () => ({ text: "standard" }),
    critique: ({ cycle }) => (cycle === 0 ? { followUp } : { sufficient: true }),
  });
  answered.length = 0;
  const refined = await refining.handle({ query: original });
  const refinedAnswers = [...answered];

  const events: string[] = [];
  const readme = await createReasoningCoordinator({ client, standard: async () => ({ text: "standard" }), onEvent: (event) => events.push(event.type) }).handle({ query: readmeQuery });

  // A server that accepts connections and never answers.
  const sockets = new Set<Socket>();
  const silent = createNetServer((socket) => { sockets.add(socket); });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  const hungPhases: unknown[] = [];
  const hungCoordinator = createReasoningCoordinator({
    client: createDeliberateClient({ transport: createHttpTransport({ baseUrl: "http://127.0.0.1:" + (silent.address() as AddressInfo).port }) }),
    standard: async () => ({ text: "standard" }),
    onEvent: (event) => { if (event.type === "phase") hungPhases.push(event); },
  });
  const hung = await hungCoordinator.handle({ query: readmeQuery });

  // A server that answers the health check and the capability read, then stops answering anything.
  let stopped = false;
  const stalling = createHttpServer((request, response) => {
    if (stopped) return;
    if (request.url === "/healthz") { response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "ok" })); return; }
    if (request.url === "/v1/capabilities") {
      void fetch(apiUrl + "/v1/capabilities").then(async (upstream) => response.writeHead(200, { "content-type": "application/json" }).end(await upstream.text()));
      return;
    }
    stopped = true;
  });
  stalling.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => stalling.listen(0, "127.0.0.1", resolve));
  const stallingCoordinator = createReasoningCoordinator({
    client: createDeliberateClient({ transport: createHttpTransport({ baseUrl: "http://127.0.0.1:" + (stalling.address() as AddressInfo).port }), complete }),
    standard: async () => ({ text: "standard" }),
  });
  const stalled = await stallingCoordinator.handle({ query: readmeQuery });
  for (const socket of sockets) socket.destroy();
  silent.close();
  stalling.close();

  const about = (outcome: CoordinatorOutcome) => ({
    kind: outcome.kind,
    source: outcome.kind === "answer" ? outcome.source : null,
    text: outcome.kind === "answer" ? outcome.text : null,
    route: outcome.decision.route,
    type: outcome.decision.selection?.type ?? null,
    gate: outcome.decision.gate,
    failure: outcome.kind === "answer" || outcome.kind === "unavailable" ? (outcome.failure ?? null) : null,
  });
  return {
    refined: { ...about(refined), answer: refined.kind === "answer" && refined.source === "reasoning" ? refined.answer : null, followUps: refined.kind === "answer" && refined.source === "reasoning" ? refined.followUps : [], answered: refinedAnswers },
    readme: { ...about(readme), events },
    hung: { ...about(hung), phases: hungPhases, bounds: hungCoordinator.bounds },
    stalled: { ...about(stalled), bounds: stallingCoordinator.bounds },
  };
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
const coordinator = await coordinatorScenarios(process.env["HOST_API_URL"] ?? "");
console.log(JSON.stringify({ results, intent: { tool: intent.tool_name, args: intent.tool_args }, health: await intents.health(), coordinator }));
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

async function npm(project: string, args: string[]): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      await run("npm", args, { cwd: project, env: npmEnv, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
      return;
    } catch (error) {
      if (attempt >= 1) throw error;
    }
  }
}

/** Packs the client and sets up the host project in `project` (an empty folder): installed, its sources and tsconfig written. */
export async function prepareHostApp(project: string): Promise<void> {
  // pnpm packs what `pnpm publish` (and changesets in this pnpm workspace) publishes: workspace: ranges
  // replaced by versions, publishConfig applied.
  const packed = await run("pnpm", ["pack", "--json", "--pack-destination", project], {
    cwd: clientRoot,
    env: npmEnv,
    timeout: 120_000,
  });
  const tarball = JSON.parse(packed.stdout) as { filename?: string; files?: Array<{ path: string }> };
  if (!tarball.filename || !tarball.files) throw new Error(`pnpm pack said: ${packed.stdout}`);
  writeFileSync(join(project, "files.json"), JSON.stringify(tarball.files.map((file) => file.path)));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "host-app", private: true, type: "module" }));
  await npm(project, [
    "install",
    "--no-package-lock",
    tarball.filename,
    `@modelcontextprotocol/client@${mcpSdkVersion}`,
    "@types/node@^20.19.0",
  ]);
  skipCheckingThirdPartyDeclarations(join(project, "node_modules"));
  mkdirSync(join(project, "src"));
  writeFileSync(join(project, "src", "host.ts"), hostProgram);
  writeFileSync(join(project, "src", "wrong.ts"), wrongProgram);
  writeFileSync(join(project, "src", "readme-example.ts"), readmeExample());
  writeFileSync(
    join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noUncheckedIndexedAccess: true,
        outDir: "out",
        rootDir: "src",
        types: ["node"],
        skipLibCheck: false,
        skipDefaultLibCheck: true,
      },
      include: ["src"],
    }),
  );
}
