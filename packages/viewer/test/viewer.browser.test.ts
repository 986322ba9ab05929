import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ReasoningSessionRecord } from "@deliberate/reasoning";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, launchChromium, seriousOf } from "./chromium.ts";
import { seedLargeGraph } from "./large-graph.ts";
import { injectionText, type SeededData, seedSessions } from "./seed-sessions.ts";
import { type ServedViewer, serveViewer } from "./serve-viewer.ts";

const outputDirectory = fileURLToPath(new URL("../test-output/", import.meta.url));
const browserTimeout = 90_000;
/**
 * Screenshots of every page under test-output, with VIEWER_SCREENSHOTS=1 (for a person to look at; no test reads
 * them). Off by default: a full-page PNG of each page was a tenth of the suite's CPU, all of it in Chromium.
 */
const screenshots = process.env["VIEWER_SCREENSHOTS"] === "1";

let seeded: SeededData;
let served: ServedViewer;
let browser: Browser;
let context: BrowserContext;
const pageErrors: string[] = [];

beforeAll(async () => {
  mkdirSync(outputDirectory, { recursive: true });
  seeded = await seedSessions();
  await seedLargeGraph(seeded.store, { sessionId: "ses_large_graph", size: 1200 });
  served = await serveViewer({
    ...seeded.source,
    pollIntervalMs: 150,
    pageSize: 5,
    filterOptions: {
      kinds: ["dialog", "graph", "linear", "mcts", "timeline"],
      tools: ["reasoning_graph", "reasoning_linear", "reasoning_mcts"],
    },
  });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: "UTC" });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await served?.close();
  await seeded?.store.close();
});

// One tab for the suite, navigated from page to page: a new tab costs Chromium a renderer process,
// which was half the suite's CPU. Navigation leaves nothing of the last page behind (DOM, scripts, streams).
let tab: Page | undefined;
let tabPath = "";

async function openPage(path: string): Promise<Page> {
  if (!tab) {
    tab = await context.newPage();
    tab.on("pageerror", (error) => pageErrors.push(`${tabPath}: ${error.message}`));
  }
  const page = tab;
  tabPath = path;
  await page.goto(`${served.origin}${path}`);
  await page.waitForSelector("body[data-state=ready]", { timeout: 30_000 });
  return page;
}

async function openSession(sessionId: string): Promise<Page> {
  return openPage(`/ui/sessions/${encodeURIComponent(sessionId)}`);
}

/** No serious or critical axe violation (and with VIEWER_SCREENSHOTS=1 a full-page screenshot under test-output). */
async function checkPage(page: Page, name: string): Promise<void> {
  await screenshot(page, name, { fullPage: true });
  expect(seriousOf(await axeViolations(page))).toEqual([]);
  expect(pageErrors).toEqual([]);
}

/** The session as the engine reads it, typed with the reasoning module's sections. */
const readRecord = async (sessionId: string) => (await seeded.engine.readSession(sessionId)) as ReasoningSessionRecord;
const texts = (page: Page, selector: string) => page.locator(selector).allTextContents();
const count = (page: Page, selector: string) => page.locator(selector).count();
const screenshot = async (page: Page, name: string, options: { fullPage?: boolean } = {}) => {
  if (screenshots) await page.screenshot({ path: `${outputDirectory}${name}.png`, ...options });
};

describe("session pages in Chromium", () => {
  it(
    "draws linear thoughts in order with their confidence",
    async () => {
      const record = await readRecord(seeded.ids.linear);
      const page = await openSession(seeded.ids.linear);
      const thoughts = page.locator("#section-thoughts li.thought");
      expect(await thoughts.count()).toBe(record.thoughts.length);
      expect(await thoughts.locator(".content").allTextContents()).toEqual(
        record.thoughts.map((thought) => thought.content),
      );
      const confidences = record.thoughts
        .filter((thought) => thought.confidence !== null)
        .map((thought) => `confidence ${thought.confidence!.toFixed(2)}`);
      expect(await texts(page, "#section-thoughts .confidence-label")).toEqual(confidences);
      expect(await count(page, "#section-invocations tbody tr")).toBe(2);
      expect(await texts(page, "#section-invocations tbody td:nth-child(3)")).toEqual([
        "scripted-sonnet (scripted)",
        "scripted-sonnet (scripted)",
      ]);
      await checkPage(page, "linear");
    },
    browserTimeout,
  );

  it(
    "draws tree branches with scores, statuses and the focused branch",
    async () => {
      const record = await readRecord(seeded.ids.tree);
      const page = await openSession(seeded.ids.tree);
      const nodes = page.locator("#section-branches g.node");
      expect(await nodes.count()).toBe(record.branches.length);
      expect(await count(page, "#section-branches path.edge")).toBe(
        record.branches.filter((branch) => branch.parent_branch_id !== null).length,
      );
      const focused = page.locator("#section-branches g.node.is-focus");
      expect(await focused.getAttribute("data-node-id")).toBe(record.session.active_branch_id);
      expect(await focused.textContent()).toContain("score 0.90");
      expect(await count(page, "#section-branches g.node.status-abandoned")).toBe(1);
      expect(await page.locator("#section-branches").textContent()).toContain("Path B: cache in the service");
      await checkPage(page, "tree");
    },
    browserTimeout,
  );

  it(
    "draws divergent perspectives with novelty, challenged assumptions and the synthesis",
    async () => {
      const page = await openSession(seeded.ids.divergent);
      expect(await count(page, "#section-divergent .perspective")).toBe(4);
      expect((await texts(page, "#section-divergent .perspective .confidence > span:first-child")).sort()).toEqual([
        "novelty 0.30",
        "novelty 0.50",
        "novelty 0.60",
        "novelty 0.85",
      ]);
      expect(await texts(page, "#section-divergent .assumptions li")).toEqual([
        "Users read the docs first",
        "Setup must be complete before use",
      ]);
      expect(await page.locator("#section-divergent .synthesis").textContent()).toContain(
        "Lead with a runnable example",
      );
      await checkPage(page, "divergent");
    },
    browserTimeout,
  );

  it(
    "draws the graph of thoughts: every node with score and status, every edge by kind",
    async () => {
      const record = await readRecord(seeded.ids.graph);
      const graph = record.graph!;
      const page = await openSession(seeded.ids.graph);
      const drawnIds = await page
        .locator("#section-graph g.node")
        .evaluateAll((elements) => elements.map((element) => element.getAttribute("data-node-id")));
      expect(drawnIds.sort()).toEqual(graph.nodes.map((node) => node.id).sort());
      const edges = await page
        .locator("#section-graph path.edge")
        .evaluateAll((elements) =>
          elements.map((element) => `${element.getAttribute("data-from")}>${element.getAttribute("data-to")}`),
        );
      expect(edges.sort()).toEqual(graph.edges.map((edge) => `${edge.from_node_id}>${edge.to_node_id}`).sort());
      expect(await count(page, "#section-graph path.edge-aggregation")).toBe(
        graph.edges.filter((edge) => edge.kind === "aggregation").length,
      );
      expect(await count(page, "#section-graph path.edge-refinement")).toBe(1);
      const pruned = graph.nodes.filter((node) => node.status === "pruned");
      expect(pruned.length).toBeGreaterThan(0);
      expect(await count(page, "#section-graph g.node.status-pruned")).toBe(pruned.length);
      const best = graph.nodes.filter((node) => node.score !== null).sort((a, b) => b.score! - a.score!)[0]!;
      expect(await page.locator(`#section-graph g.node[data-node-id="${best.id}"]`).textContent()).toContain(
        `score ${best.score!.toFixed(2)}`,
      );
      expect(await page.locator("#section-graph .facts").textContent()).toContain("CI takes 40 minutes");
      await checkPage(page, "graph");
    },
    browserTimeout,
  );

  it(
    "draws timelines with fork points and the merge",
    async () => {
      const record = await readRecord(seeded.ids.timeline);
      const branches = record.timelines![0]!.branches;
      const page = await openSession(seeded.ids.timeline);
      expect(await count(page, "#section-timelines g.node")).toBe(branches.length);
      expect(await count(page, "#section-timelines path.edge-fork")).toBe(
        branches.filter((branch) => branch.parent_branch_id).length,
      );
      const merge = page.locator("#section-timelines path.edge-merge");
      expect(await merge.count()).toBe(1);
      const merged = branches.find((branch) => branch.status === "merged")!;
      expect(await merge.getAttribute("data-from")).toBe(merged.id);
      expect(await merge.getAttribute("data-to")).toBe(merged.merged_into_id);
      expect(await texts(page, "#section-timelines text.edge-merge")).toEqual(["merge (interleave)"]);
      // main forks twice, fast once.
      expect(await count(page, "#section-timelines g.node.is-fork")).toBe(2);
      expect(await page.locator("#section-timelines g.node.is-fork").first().textContent()).toContain(
        "fork point: 2 branches",
      );
      await checkPage(page, "timeline");
    },
    browserTimeout,
  );

  it(
    "draws the MCTS tree with visits, mean values and UCB, and the best path",
    async () => {
      const record = await readRecord(seeded.ids.mcts);
      const nodes = record.search_nodes!;
      const page = await openSession(seeded.ids.mcts);
      expect(await count(page, "#section-search_nodes g.node")).toBe(nodes.length);
      expect(await count(page, "#section-search_nodes path.edge")).toBe(nodes.length - 1);
      const bestPath = record.thoughts.at(-1)!.metadata["best_path"] as string[];
      expect(await count(page, "#section-search_nodes g.node.is-best")).toBe(bestPath.length);
      const visited = nodes.find((node) => node.parent_id !== null && node.visits > 0)!;
      const parent = nodes.find((node) => node.id === visited.parent_id)!;
      const ucb =
        visited.total_value / visited.visits + Math.SQRT2 * Math.sqrt(Math.log(parent.visits) / visited.visits);
      expect(await page.locator(`#section-search_nodes g.node[data-node-id="${visited.id}"]`).textContent()).toContain(
        `N ${visited.visits} · Q ${(visited.total_value / visited.visits).toFixed(2)} · UCB ${ucb.toFixed(2)}`,
      );
      await checkPage(page, "mcts");
    },
    browserTimeout,
  );

  it(
    "draws the decision matrix with ranking bars",
    async () => {
      const page = await openSession(seeded.ids.decision);
      expect(await texts(page, "#section-decision .ranking-label")).toEqual(["1. Postgres", "2. MySQL", "3. SQLite"]);
      expect(await texts(page, "#section-decision .ranking-value")).toEqual(["0.600", "0.500", "0.400"]);
      const widths = await page
        .locator("#section-decision .ranking .bar-fill")
        .evaluateAll((elements) => elements.map((element) => (element as HTMLElement).style.width));
      expect(widths).toEqual(["100%", "83.3%", "66.7%"]);
      expect(await count(page, "#section-decision table.matrix tbody tr")).toBe(3);
      expect(await page.locator("#section-decision .recommendation").textContent()).toContain('Choose "Postgres"');
      await checkPage(page, "decision");
    },
    browserTimeout,
  );

  it(
    "draws evidence from prior to posterior",
    async () => {
      const page = await openSession(seeded.ids.evidence);
      const values = await page
        .locator("#section-evidence circle.point")
        .evaluateAll((elements) => elements.map((element) => Number(element.getAttribute("data-value"))));
      expect(values).toHaveLength(4);
      expect(values[0]).toBe(0.3);
      expect(values[3]).toBeCloseTo(0.857, 3);
      expect(values).toEqual([...values].sort((a, b) => a - b));
      expect(await count(page, "#section-evidence table.evidence-steps tbody tr")).toBe(3);
      expect(await page.locator("#section-evidence .facts").textContent()).toContain("Posterior0.857");
      await checkPage(page, "evidence");
    },
    browserTimeout,
  );

  it(
    "draws the causal DAG with the intervention and counterfactual changes",
    async () => {
      const page = await openSession(seeded.ids.counterfactual);
      expect(
        (
          await page
            .locator("#section-counterfactual g.node")
            .evaluateAll((elements) => elements.map((element) => element.getAttribute("data-node-id")))
        ).sort(),
      ).toEqual(["ads", "demand", "profit", "sales"]);
      expect(await count(page, "#section-counterfactual path.edge")).toBe(4);
      expect(
        await page.locator('#section-counterfactual g.node.relation-intervened[data-node-id="ads"]').textContent(),
      ).toContain("do(ads +1)");
      expect(await page.locator('#section-counterfactual g.node[data-node-id="sales"]').textContent()).toContain(
        "change +2",
      );
      expect(await page.locator('#section-counterfactual g.node[data-node-id="profit"]').textContent()).toContain(
        "change +1",
      );
      expect(await page.locator('#section-counterfactual g.node[data-node-id="demand"]').textContent()).toContain(
        "unchanged",
      );
      expect((await texts(page, "#section-counterfactual text.edge-label")).sort()).toEqual([
        "0.50",
        "1.00",
        "1.00",
        "2.00",
      ]);
      await checkPage(page, "counterfactual");
    },
    browserTimeout,
  );

  it(
    "shows checkpoints and the thoughts a restore set aside",
    async () => {
      const page = await openSession(seeded.ids.checkpoints);
      expect(await texts(page, "#section-checkpoints li.checkpoint h3")).toEqual(["before canary", "after canary"]);
      expect(await count(page, "#section-checkpoints .checkpoint-marker")).toBe(2);
      expect(await count(page, "#section-thoughts li.thought.is-superseded")).toBeGreaterThan(0);
      await checkPage(page, "checkpoints");
    },
    browserTimeout,
  );

  it(
    "draws the dialog transcript with its quality trajectory",
    async () => {
      const page = await openSession(seeded.ids.dialog);
      const points = await page
        .locator("#section-dialog circle.point")
        .evaluateAll((elements) => elements.map((element) => Number(element.getAttribute("data-value"))));
      expect(points).toEqual([0.45, 0.68, 0.84]);
      expect(await count(page, "#section-dialog line.threshold")).toBe(1);
      expect(await count(page, "#section-dialog li.exchange")).toBe(6);
      expect(await texts(page, "#section-dialog .dialog-round h4")).toEqual([
        "Iteration 0",
        "Iteration 1",
        "Iteration 2",
      ]);
      expect(await page.locator("#section-dialog").textContent()).toContain("quality 0.84");
      await checkPage(page, "dialog");
    },
    browserTimeout,
  );

  it(
    "draws the knowledge graph with derived relations highlighted and explained",
    async () => {
      const page = await openSession(seeded.ids.knowledgeGraph);
      expect(await count(page, "#section-knowledge_graph g.node")).toBe(4);
      expect(await count(page, "#section-knowledge_graph path.edge")).toBe(5);
      const derived = await page
        .locator("#section-knowledge_graph path.edge-derived")
        .evaluateAll((elements) =>
          elements.map((element) => `${element.getAttribute("data-from")}>${element.getAttribute("data-to")}`),
        );
      expect(derived.sort()).toEqual(["e_api>e_db", "e_api>e_latency"]);
      expect(await texts(page, "#section-knowledge_graph .derivation strong")).toEqual([
        "API depends_on Database",
        "API affected_by Latency",
      ]);
      expect(await texts(page, "#section-knowledge_graph .derivation[data-relation-id=r4] .premises li")).toEqual([
        "API reads_through Cache (r1)",
        "Cache reads_through Database (r2)",
      ]);
      await checkPage(page, "knowledge-graph");
    },
    browserTimeout,
  );

  it(
    "shows guided-workflow progress",
    async () => {
      const page = await openSession(seeded.ids.workflow);
      expect(
        await page
          .locator("#section-workflow .workflow-step")
          .evaluateAll((elements) =>
            elements.map((element) => `${element.getAttribute("data-step")}:${element.className}`),
          ),
      ).toEqual([
        "decompose:workflow-step step-done",
        "analyze:workflow-step step-current",
        "synthesize:workflow-step step-todo",
      ]);
      expect(await page.locator("#section-workflow [aria-current=step]").getAttribute("data-step")).toBe("analyze");
      expect(await page.locator("#section-workflow .confidence").textContent()).toContain("1 of 3 steps done");
      await checkPage(page, "workflow");
    },
    browserTimeout,
  );

  it(
    "renders reasoning text containing <script> as text, running nothing",
    async () => {
      const page = await openSession(seeded.ids.injection);
      expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();
      expect(await page.locator("#main script, #main img").count()).toBe(0);
      const contents = await texts(page, "#section-thoughts .content");
      expect(contents[0]).toBe(injectionText);
      expect(contents[1]).toContain(injectionText);
      expect(await page.locator("#section-checkpoints li.checkpoint h3").textContent()).toBe(injectionText);
      expect(await page.locator("#section-checkpoints li.checkpoint p").first().textContent()).toBe("<b>bold?</b>");
      expect(await page.locator("#main b").count()).toBe(0);
      await checkPage(page, "injection");
    },
    browserTimeout,
  );

  it(
    "caps a large graph and shows more on request",
    async () => {
      const page = await openSession("ses_large_graph");
      expect(await count(page, "#section-graph g.node")).toBe(250);
      expect(await page.locator("#section-graph .cap-text").textContent()).toBe("Showing 250 of 1,200 nodes.");
      await page.getByRole("button", { name: "Show 250 more" }).click();
      await expect.poll(() => count(page, "#section-graph g.node"), { timeout: 30_000 }).toBe(500);
      await page.getByRole("button", { name: "Show all" }).click();
      // More nodes than one page of the session holds (1000): the page read them all, page by page.
      await expect.poll(() => count(page, "#section-graph g.node"), { timeout: 30_000 }).toBe(1200);
      expect(await count(page, "#section-graph .cap")).toBe(0);
      await screenshot(page, "large-graph");
    },
    browserTimeout,
  );

  it(
    "follows the session live: a new thought appears without reloading",
    async () => {
      const page = await openSession(seeded.ids.linear);
      await expect
        .poll(() => page.locator("#live-status").getAttribute("data-state"), { timeout: 30_000 })
        .toBe("live");
      const before = await count(page, "#section-thoughts li.thought");
      seeded.advance(60_000);
      await seeded.engine.invoke("reasoning_linear", {
        content: "Live: what about cache stampedes?",
        session_id: seeded.ids.linear,
      });
      await expect.poll(() => count(page, "#section-thoughts li.thought"), { timeout: 30_000 }).toBe(before + 2);
      expect(await texts(page, "#section-thoughts .content")).toContain("Live: what about cache stampedes?");
      expect(await page.locator("[data-field=thought-count]").textContent()).toBe(String(before + 2));
    },
    browserTimeout,
  );

  it("has an accessibility check that can fail", async () => {
    const page = await openSession(seeded.ids.decision);
    await page.evaluate(() => {
      const image = document.createElement("img");
      image.src = "data:image/gif;base64,R0lGODlhAQABAAAAACw=";
      document.getElementById("main")?.append(image);
    });
    expect((await axeViolations(page)).map((violation) => violation.id)).toContain("image-alt");
  });
});

describe("session list in Chromium", () => {
  it(
    "lists sessions newest first, paginates, filters by kind and tool, searches and links to each session",
    async () => {
      const all = await seeded.source.listSessions({ limit: 100, offset: 0 });
      const page = await openPage("/ui");
      const ids = () =>
        page
          .locator("table.sessions tbody tr")
          .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-session-id")));
      expect(await ids()).toEqual(all.slice(0, 5).map((session) => session.id));
      await checkPage(page, "session-list");

      await page.getByRole("link", { name: "Older" }).click();
      await page.waitForSelector("body[data-state=ready]");
      expect(await ids()).toEqual(all.slice(5, 10).map((session) => session.id));
      expect(await page.getByRole("link", { name: "Newer" }).count()).toBe(1);

      await page.selectOption("#filter-kind", "graph");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/kind=graph/);
      await page.waitForSelector("body[data-state=ready]");
      expect((await ids()).sort()).toEqual([seeded.ids.graph, "ses_large_graph"].sort());

      await page.selectOption("#filter-kind", "");
      await page.selectOption("#filter-tool", "reasoning_mcts");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/tool=reasoning_mcts/);
      await page.waitForSelector("body[data-state=ready]");
      expect(await ids()).toEqual([seeded.ids.mcts]);

      await page.selectOption("#filter-tool", "");
      await page.fill("#filter-search", "postgres");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.waitForURL(/search=postgres/);
      await page.waitForSelector("body[data-state=ready]");
      expect(await ids()).toEqual([seeded.ids.decision]);

      await page.getByRole("link", { name: seeded.ids.decision }).click();
      await page.waitForSelector("#section-decision");
      expect(new URL(page.url()).pathname).toBe(`/ui/sessions/${seeded.ids.decision}`);
    },
    browserTimeout,
  );
});

describe("bearer token in Chromium", () => {
  let protectedViewer: ServedViewer;
  beforeAll(async () => {
    protectedViewer = await serveViewer({ ...seeded.source, token: "correct horse", pollIntervalMs: 150 });
  });
  afterAll(async () => {
    await protectedViewer.close();
  });

  it(
    "asks for the token in a form, keeps it out of URLs, and sends it in the Authorization header (stream included)",
    async () => {
      const tokenContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await tokenContext.newPage();
      const requests: Array<{ url: string; authorization: string | undefined }> = [];
      page.on("request", (request) =>
        requests.push({ url: request.url(), authorization: request.headers()["authorization"] }),
      );
      await page.goto(`${protectedViewer.origin}/ui/sessions/${seeded.ids.graph}`);
      await page.waitForSelector("form.token-form");
      await screenshot(page, "token-form");
      expect(seriousOf(await axeViolations(page))).toEqual([]);

      await page.fill("#token-input", "wrong");
      await page.getByRole("button", { name: "View sessions" }).click();
      await page.waitForSelector("form.token-form [role=alert]");
      expect(await page.locator("form.token-form [role=alert]").textContent()).toContain("refused");

      await page.fill("#token-input", "correct horse");
      await page.getByRole("button", { name: "View sessions" }).click();
      await page.waitForSelector("#section-graph g.node");
      await expect
        .poll(() => page.locator("#live-status").getAttribute("data-state"), { timeout: 30_000 })
        .toBe("live");

      const stream = requests.find((request) => request.url.endsWith("/events"));
      expect(stream?.authorization).toBe("Bearer correct horse");
      const data = requests.filter((request) => request.url.includes("/ui/api/"));
      expect(data.at(-1)?.authorization).toBe("Bearer correct horse");
      for (const request of requests) expect(decodeURIComponent(request.url)).not.toContain("correct horse");
      expect(page.url()).not.toContain("correct");
      expect(await page.evaluate(() => sessionStorage.getItem("deliberate-viewer-token"))).toBe("correct horse");

      // Kept for the tab: a reload needs no new entry; forgetting it asks again.
      await page.reload();
      await page.waitForSelector("#section-graph g.node");
      await page.getByRole("button", { name: "Forget token" }).click();
      await page.waitForSelector("form.token-form");
      expect(await page.evaluate(() => sessionStorage.getItem("deliberate-viewer-token"))).toBeNull();
      await tokenContext.close();
    },
    browserTimeout,
  );
});
