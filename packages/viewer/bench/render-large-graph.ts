/**
 * How long the session page of a 2,000-node graph takes to render in Chromium
 * (issue 17: at most 1 s). Measures, over fresh page loads:
 * - ready: navigation start to the page drawn (HTML, script, session JSON,
 *   dagre layout and SVG for the capped view), from the page's own
 *   `viewer-ready` performance mark;
 * - show all: drawing every node after "Show all" (layout + DOM + the next frame).
 * Run: pnpm --filter @deliberate/viewer bench
 */
import { createEngine, createSequentialIds } from "@deliberate/engine";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { openStore } from "@deliberate/store";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { launchChromium } from "../test/chromium.ts";
import { seedLargeGraph } from "../test/large-graph.ts";
import { createSeededSource } from "../test/seed-sessions.ts";
import { serveViewer } from "../test/serve-viewer.ts";

const size = Number(process.env["GRAPH_NODES"] ?? 2000);
const runs = Number(process.env["RUNS"] ?? 7);

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  return `median ${at(0.5).toFixed(0)} ms (min ${sorted[0]!.toFixed(0)}, max ${sorted.at(-1)!.toFixed(0)})`;
}

const store = await openStore<ReasoningRepositories>({ path: ":memory:", modules: [reasoningModule] });
const engine = createEngine({
  store,
  modules: [reasoningModule],
  models: createModelRouterFromModel(createScriptedModel([])),
  ids: createSequentialIds(),
});
const sessionId = await seedLargeGraph(store, { sessionId: "ses_bench_graph", size });
const served = await serveViewer(createSeededSource(store, engine, new Map()));
const browser = await launchChromium();
const ready: number[] = [];
const dataAt: number[] = [];
const drawMs: number[] = [];
const showAll: number[] = [];
let jsonBytes = 0;
try {
  jsonBytes = (await (await fetch(`${served.origin}/ui/api/sessions/${sessionId}`)).text()).length;
  for (let run = 0; run < runs + 1; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${served.origin}/ui/sessions/${sessionId}`);
    await page.waitForSelector("body[data-state=ready]", { timeout: 60_000 });
    const readyAt = await page.evaluate(() => performance.getEntriesByName("viewer-ready")[0]?.startTime ?? Number.NaN);
    const dataReceived = await page.evaluate(
      () => performance.getEntriesByName("viewer-data")[0]?.startTime ?? Number.NaN,
    );
    const drawn = Number(await page.locator("#main").getAttribute("data-render-ms"));
    const allMs = await page.evaluate(async () => {
      const button = [...document.querySelectorAll("button")].find((element) => element.textContent === "Show all");
      if (!button) return Number.NaN;
      const started = performance.now();
      button.click();
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      return performance.now() - started;
    });
    const nodes = await page.locator("#section-graph g.node").count();
    if (nodes !== size) throw new Error(`expected ${size} nodes after "Show all", found ${nodes}`);
    // The first run warms the server and the browser's caches; it is not counted.
    if (run > 0) {
      ready.push(readyAt);
      dataAt.push(dataReceived);
      drawMs.push(drawn);
      showAll.push(allMs);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await served.close();
  await store.close();
}
console.log(
  `viewer: session page of a ${size}-node graph in Chromium (${runs} runs, session JSON ${(jsonBytes / 1024).toFixed(0)} KiB)`,
);
console.log(`  page ready (first 250 nodes drawn, cap with "show more"): ${summary(ready)}  goal <= 1000 ms`);
console.log(`    of which: session JSON received at ${summary(dataAt)}; drawing ${summary(drawMs)}`);
console.log(`  "Show all" (every node laid out and drawn):               ${summary(showAll)}`);
