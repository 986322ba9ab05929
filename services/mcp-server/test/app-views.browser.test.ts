import { existsSync, mkdirSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { answerDialogPrompt } from "@deliberate/dialog/testing";
import { answerFor, scenarioDomainKnowledge } from "@deliberate/knowledge-graph/testing";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { type Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { build } from "esbuild";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHttpServer } from "./support/http-process.ts";
import { startStdioServer, temporaryDirectory } from "./support/server-process.ts";
import { testClient } from "./support/test-client.ts";
import { respondStateful } from "./support/tool-answers.ts";

// The in-chat views (MCP Apps) in a real browser: a host page built on ext-apps' AppBridge shows
// each view's ui:// document in a sandboxed iframe and relays its requests to the built server
// (over stdio and over Streamable HTTP) through a real MCP client. Each view must draw its
// nodes and labels from the tool result's session, and nothing may be fetched off loopback.

const headlessShell = "/usr/bin/chromium-headless-shell";
const chromiumPath = process.env["CHROMIUM_PATH"] ?? (existsSync(headlessShell) ? headlessShell : "/usr/bin/chromium");
const mcpAppMimeType = "text/html;profile=mcp-app";
/** DELIBERATE_SCREENSHOTS=<directory> saves a screenshot of each view (the README's). */
const screenshots = process.env["DELIBERATE_SCREENSHOTS"];

const directory = temporaryDirectory();
let fake: FakeModelServer;
let browser: Browser;
let hostPage: Server;
let hostUrl: string;

beforeAll(async () => {
  if (!existsSync(chromiumPath))
    throw new Error(
      `Chromium not found at ${chromiumPath}: apt-get install -y chromium-headless-shell (.ci/run does this), or set CHROMIUM_PATH.`,
    );
  fake = await createFakeModelServer({
    respond: (request) => {
      if ((request.schemaName ?? "").startsWith("knowledge_graph_"))
        return { object: answerFor(request.schemaName ?? "", request.prompt) };
      if ((request.schemaName ?? "").startsWith("dialog_")) {
        return {
          object: answerDialogPrompt(
            {
              schemaName: request.schemaName ?? "",
              system: request.system,
              user: request.prompt,
              jsonSchema: request.jsonSchema ?? {},
            },
            {},
          ),
        };
      }
      return respondStateful(request);
    },
  });
  const bundle = await build({
    entryPoints: [join(import.meta.dirname, "support", "view-host", "host-page.ts")],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    logLevel: "warning",
  });
  const script = (bundle.outputFiles[0]?.text ?? "").replaceAll("</", "<\\/");
  hostPage = createHttpServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test host</title><link rel="icon" href="data:,"></head><body><script>${script}</script></body></html>`,
    );
  });
  await new Promise<void>((resolve) => hostPage.listen(0, "127.0.0.1", resolve));
  hostUrl = `http://127.0.0.1:${(hostPage.address() as AddressInfo).port}/`;
  browser = await chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => hostPage?.close(resolve));
  await fake?.close();
  directory.remove();
});

/** True for requests that stay on this machine (or never leave the page). */
function isLocal(url: string): boolean {
  if (/^(about|data|blob):/.test(url)) return true;
  const { hostname } = new URL(url);
  return hostname === "127.0.0.1" || hostname === "localhost" || hostname === "[::1]";
}

interface Host {
  page: Page;
  requests: string[];
  /** Shows the tool's view with `result`, waits until it has drawn, and returns the view's text. */
  show(tool: string, result: unknown): Promise<string>;
}

async function openHost(client: Client): Promise<Host> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 940 } });
  const requests: string[] = [];
  page.on("request", (request) => void requests.push(request.url()));
  await page.exposeFunction("hostCall", (method: string, params: Record<string, unknown>) =>
    method === "resources/read"
      ? client.readResource(params as { uri: string })
      : client.callTool(params as { name: string; arguments?: Record<string, unknown> }),
  );
  await page.goto(hostUrl);
  const tools = (await client.listTools()).tools;
  return {
    page,
    requests,
    async show(tool, result) {
      const meta = tools.find((candidate) => candidate.name === tool)?._meta as
        | { ui?: { resourceUri?: string }; "ui/resourceUri"?: string }
        | undefined;
      const uri = meta?.ui?.resourceUri;
      expect(uri, `${tool} links a view`).toMatch(/^ui:\/\/deliberate\/.+\.html$/);
      expect(meta?.["ui/resourceUri"]).toBe(uri);
      const read = await client.readResource({ uri: uri as string });
      const content = read.contents[0] as {
        mimeType?: string;
        text?: string;
        _meta?: { ui?: { csp?: { connectDomains?: string[]; resourceDomains?: string[] } } };
      };
      expect(content.mimeType).toBe(mcpAppMimeType);
      expect(content._meta?.ui?.csp).toEqual({ connectDomains: [], resourceDomains: [] });
      await page.evaluate(([html, toolResult]) => window.showView(html as string, toolResult), [
        content.text,
        result,
      ] as const);
      const frame = page.frames().find((candidate) => candidate !== page.mainFrame());
      if (frame === undefined) throw new Error("the view's frame is missing");
      await frame.waitForSelector("body[data-state='ready'], body[data-state='error'], body[data-state='empty']");
      const text = (await frame.locator("main").textContent()) ?? "";
      expect(await frame.evaluate(() => document.body.dataset["state"]), text).toBe("ready");
      if (screenshots) {
        mkdirSync(screenshots, { recursive: true });
        await page.locator("iframe").screenshot({ path: join(screenshots, `${tool}.png`) });
      }
      return text;
    },
  };
}

/** Calls a tool and returns its whole result (as a host hands it to the view). */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
  return result;
}

const transports = [
  {
    name: "stdio",
    async connect(env: Record<string, string>) {
      const server = await startStdioServer(env);
      return { client: server.client, close: () => server.close() };
    },
  },
  {
    name: "Streamable HTTP",
    async connect(env: Record<string, string>) {
      const server = await startHttpServer(["--http", "--port", "0"], env);
      const client = testClient({ name: "view-host", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(server.url));
      return {
        client,
        close: async () => {
          await client.close();
          await server.stop();
        },
      };
    },
  },
];

describe.each(transports)("in-chat views over $name", (transport) => {
  let client: Client;
  let close: () => Promise<unknown>;
  let host: Host;

  beforeAll(async () => {
    const env = {
      DATABASE_PATH: join(directory.path, `${transport.name.replaceAll(" ", "-")}.db`),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
    };
    ({ client, close } = await transport.connect(env));
    host = await openHost(client);
  });
  afterAll(async () => {
    await host?.page.close();
    await close?.();
  });

  it("lists the views as MCP App resources, linked from their tools", async () => {
    const { resources } = await client.listResources();
    const views = resources.filter((resource) => resource.uri.startsWith("ui://"));
    expect(views.map((view) => view.uri)).toEqual(
      expect.arrayContaining([
        "ui://deliberate/decision.html",
        "ui://deliberate/graph.html",
        "ui://deliberate/dialog.html",
      ]),
    );
    expect(views.every((view) => view.mimeType === mcpAppMimeType)).toBe(true);
  });

  it("draws the decision ranking and matrix from reasoning_decision's result", async () => {
    const result = await call(client, "reasoning_decision", {
      type: "weighted",
      question: "Which database for the audit log?",
      options: ["Postgres", "SQLite", "DynamoDB"],
      criteria: [
        { name: "operability", weight: 2 },
        { name: "cost", weight: 1, direction: "cost" },
      ],
      scores: [
        [8, 5],
        [9, 1],
        [6, 7],
      ],
    });
    const text = await host.show("reasoning_decision", result);
    expect(text).toContain("Which database for the audit log?");
    const rankings = (result.structuredContent as { rankings: Array<{ option: string; rank: number }> }).rankings;
    for (const ranking of rankings) expect(text).toContain(`${ranking.rank}. ${ranking.option}`);
    for (const label of ["operability", "cost", "Decision matrix"]) expect(text).toContain(label);
  });

  it("draws the graph of thoughts' nodes from reasoning_graph's result", async () => {
    const init = await call(client, "reasoning_graph", { operation: "init", content: "Cut CI time in half." });
    const { session_id: sessionId, node_id: rootId } = init.structuredContent as {
      session_id: string;
      node_id?: string;
      nodes?: Array<{ id: string }>;
    };
    const root = rootId ?? (init.structuredContent as { nodes: Array<{ id: string }> }).nodes[0]?.id;
    const generated = await call(client, "reasoning_graph", {
      operation: "generate",
      session_id: sessionId,
      node_id: root,
      k: 3,
    });
    const text = await host.show("reasoning_graph", generated);
    expect(text).toContain("Cut CI time in half.");
    const children = (generated.structuredContent as { nodes?: Array<{ content: string }> }).nodes ?? [];
    expect(children.length).toBeGreaterThan(0);
    const svgText = await host.page.frames()[1]?.locator("svg").first().textContent();
    for (const child of children) expect(`${text}\n${svgText}`).toContain(child.content.slice(0, 20));
  });

  it("draws a dialog session's quality trajectory and exchanges from its results", async () => {
    const started = await call(client, "start_reasoning_session", {
      topic: "Should we adopt trunk-based development?",
      maxIterations: 2,
    });
    const sessionId = (started.structuredContent as { session_id: string }).session_id;
    const exchange = await call(client, "run_reasoning_exchange", { session_id: sessionId });
    const text = await host.show("run_reasoning_exchange", exchange);
    expect(text).toContain("Should we adopt trunk-based development?");
    expect(text).toContain("Iteration 0");
    const agents = ((exchange.structuredContent as { exchanges?: Array<{ agent?: string }> }).exchanges ?? [])
      .map((item) => item.agent)
      .filter((agent) => agent !== undefined);
    expect(agents.length).toBeGreaterThan(0);
    for (const agent of agents) expect(text).toContain(agent as string);
    expect(await host.page.frames()[1]?.locator(".quality-chart").count()).toBeGreaterThan(0);
  });

  it("draws the evidence update and the causal DAG, computed in code from the arguments", async () => {
    const evidence = await call(client, "reasoning_evidence", {
      type: "probabilistic",
      hypothesis: "The outage was caused by the cache",
      prior: 0.3,
      evidence: [{ content: "Cache errors spiked at 10:02", likelihood_if_true: 0.9, likelihood_if_false: 0.2 }],
    });
    const evidenceText = await host.show("reasoning_evidence", evidence);
    expect(evidenceText).toContain("The outage was caused by the cache");
    expect(evidenceText).toContain("Cache errors spiked at 10:02");
    const causalModel = {
      variables: ["demand", "ads", "sales"],
      relationships: [
        { cause: "demand", effect: "ads", strength: 1 },
        { cause: "ads", effect: "sales", strength: 2 },
      ],
    };
    const counterfactual = await call(client, "reasoning_counterfactual", {
      scenario: "A shop",
      intervention: "More ads",
      causal_model: causalModel,
      intervention_target: { variable: "ads", change: 1 },
      narrate: false,
    });
    const text = await host.show("reasoning_counterfactual", counterfactual);
    const svgText = await host.page.frames()[1]?.locator("svg").first().textContent();
    for (const variable of causalModel.variables) expect(`${text}\n${svgText}`).toContain(variable);
  });

  it("draws a timeline's branches, the MCTS tree and the knowledge graph from their results", async () => {
    const created = await call(client, "reasoning_timeline", {
      operation: "create",
      content: "Kickoff.\n\nLaunch in March.",
    });
    const timelineId = (created.structuredContent as { timeline_id: string }).timeline_id;
    const branched = await call(client, "reasoning_timeline", {
      operation: "branch",
      timeline_id: timelineId,
      content: "Launch slips to May.",
      label: "slip",
    });
    const timelineText = await host.show("reasoning_timeline", branched);
    const timelineSvg = await host.page.frames()[1]?.locator("svg").first().textContent();
    expect(`${timelineText}\n${timelineSvg}`).toContain("slip");

    const explored = await call(client, "reasoning_mcts", {
      operation: "explore",
      content: "Choose a caching strategy.",
      iterations: 3,
      branching_factor: 2,
    });
    const mctsText = await host.show("reasoning_mcts", explored);
    const mctsSvg = await host.page.frames()[1]?.locator("svg").first().textContent();
    expect(`${mctsText}\n${mctsSvg}`).toContain("Choose a caching strategy.");

    const deduced = await call(client, "reasoning_execute_task", {
      taskId: "view-1",
      reasoningType: "deductive",
      goalQuery: "Is Alice an ancestor of Dave?",
      contextData: { domainKnowledge: scenarioDomainKnowledge },
    });
    const structured = deduced.structuredContent as {
      status: string;
      result?: { reasoningTrace?: { subgraph: { entities: Array<{ name: string }> } } };
    };
    expect(structured.status).toBe("completed");
    const kgText = await host.show("reasoning_execute_task", deduced);
    const kgSvg = await host.page.frames()[1]?.locator("svg").first().textContent();
    for (const entity of structured.result?.reasoningTrace?.subgraph.entities ?? [])
      expect(`${kgText}\n${kgSvg}`).toContain(entity.name);
  });

  it.runIf(transport.name === "stdio")(
    "reads a session larger than one resource page (1,000 items) whole",
    async () => {
      const decide = (question: string, sessionId?: string) =>
        call(client, "reasoning_decision", {
          type: "weighted",
          question,
          options: ["A", "B"],
          criteria: [{ name: "c", weight: 1 }],
          scores: [[1], [2]],
          ...(sessionId ? { session_id: sessionId } : {}),
        });
      const first = await decide("Decision 0");
      const sessionId = (first.structuredContent as { session_id: string }).session_id;
      for (let batch = 0; batch < 20; batch += 1)
        await Promise.all(
          Array.from({ length: 50 }, (_, index) => decide(`Decision ${batch * 50 + index + 1}`, sessionId)),
        );
      const last = await decide("Decision 1001", sessionId);
      const text = await host.show("reasoning_decision", last);
      expect(text).toContain("Decision 1001");
      expect(await host.page.frames()[1]?.locator("article.decision").count()).toBe(1002);
    },
  );

  it("made no request off loopback", () => {
    expect(host.requests.length).toBeGreaterThan(0);
    expect(host.requests.filter((url) => !isLocal(url))).toEqual([]);
  });
});
