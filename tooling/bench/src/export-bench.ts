import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { dialogModule } from "@deliberate/dialog";
import {
  createEngine,
  type DeliberateEngine,
  type DeliberateModule,
  exportSession,
  type StreamedExportFormat,
} from "@deliberate/engine";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { freePort } from "@deliberate/replicas";
import { openStore, type Store } from "@deliberate/store";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import Database from "better-sqlite3";
import { sql } from "kysely";
import { summarize, type Summary } from "./statistics.ts";

// Issue 30 (export), on one SQLite file as the services use it, every figure against a bare
// baseline measured in the same run:
//   the whole 10,000-thought session in one request, streamed by the built HTTP API
//     (GET /v1/sessions/{id}/export, Markdown and JSON; goal <= 50 ms), the engine's stream in process,
//     and the built MCP server's export.md resource over stdio (one read; before: ten windowed reads);
//   thoughts 9,900-10,000 of a 100,000-thought session (goal <= 5 ms): in process and over HTTP;
//   memory: heap and RSS growth while exporting 10,000 vs 100,000 thoughts, streamed vs read whole.
// The bare baseline: the same rows read with one better-sqlite3 statement, rendered by string concatenation.
// Run alone (after building both services): pnpm --filter @deliberate/bench exec tsx src/export-bench.ts

const root = fileURLToPath(new URL("../../../", import.meta.url));
const apiPath = join(root, "services/http-api/dist/main.js");
const mcpPath = join(root, "services/mcp-server/dist/main.js");
const runs = Number(process.env["BENCH_EXPORT_RUNS"] ?? 30);
const pageRuns = 200;
const small = { id: "ses_export_10k", thoughts: 10_000 };
const large = { id: "ses_export_100k", thoughts: 100_000 };
const megabyte = 1024 * 1024;

/** One figure: ours against the bare baseline, both in this run. */
export interface ExportFigure {
  name: string;
  summary: Summary;
  bare: Summary;
  goalMs?: number;
}

/** Memory growth while exporting one session (MB above the level before it, after a full GC). */
export interface MemoryFigure {
  name: string;
  thoughts: number;
  heapMb: number;
  rssMb: number;
}

export interface ExportBenchReport {
  figures: ExportFigure[];
  memory: MemoryFigure[];
}

/** Sessions written in one statement each, the scale bench's thought text. */
async function seed(store: Store, session: { id: string; thoughts: number }): Promise<void> {
  await store.sessions.create({ id: session.id, mode: "linear", now: new Date().toISOString() });
  await sql`
    with recursive counter(n) as (select 0 union all select n + 1 from counter where n < ${session.thoughts - 1})
    insert into thoughts (id, session_id, position, branch_id, parent_id, mode, content, confidence, status, metadata, created_at)
    select ${session.id} || '_th_' || n, ${session.id}, n, null, case when n = 0 then null else ${session.id} || '_th_' || (n - 1) end, 'linear',
           'Step ' || n || ': weigh the cache hit rate against the invalidation cost for tier ' || (n % 7) || '.',
           0.5 + (n % 5) / 10.0, 'active', '{}', ${new Date().toISOString()}
    from counter`.execute(store.db);
}

async function time(count: number, work: () => Promise<unknown> | unknown, warmup = 3): Promise<Summary> {
  const times: number[] = [];
  for (let run = 0; run < count + warmup; run += 1) {
    const started = performance.now();
    await work();
    if (run >= warmup) times.push(performance.now() - started);
  }
  return summarize(times);
}

/** The bare baseline: one prepared statement per read, text by concatenation. */
function bareReader(path: string) {
  const db = new Database(path, { readonly: true });
  const sessionById = db.prepare("select * from sessions where id = ?");
  const thoughts = db.prepare(
    "select id, session_id, branch_id, parent_id, mode, content, confidence, status, metadata, created_at from thoughts where session_id = ? order by position",
  );
  const page = db.prepare("select * from thoughts where session_id = ? and position >= ? order by position limit ?");
  return {
    markdown(sessionId: string): string {
      const session = sessionById.get(sessionId) as { id: string; mode: string };
      let text = `# Session ${session.id}\n\n- Mode: ${session.mode}\n\n## Thoughts\n`;
      let number = 0;
      for (const row of thoughts.all(sessionId) as Array<{
        id: string;
        mode: string;
        content: string;
        confidence: number | null;
      }>) {
        number += 1;
        text += `\n### ${number}. ${row.mode}${row.confidence === null ? "" : `, confidence ${row.confidence}`}\n\n<!-- ${row.id} -->\n\n${row.content}\n`;
      }
      return text;
    },
    json(sessionId: string): string {
      return JSON.stringify({ session: sessionById.get(sessionId), thoughts: thoughts.all(sessionId) }, null, 2);
    },
    page(sessionId: string, offset: number, limit: number): string {
      return JSON.stringify(page.all(sessionId, offset, limit));
    },
    close: () => db.close(),
  };
}

async function startApi(databasePath: string): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [apiPath], {
    env: {
      PATH: process.env["PATH"] ?? "",
      PORT: String(port),
      DATABASE_PATH: databasePath,
      LOG_LEVEL: "warn",
      REASONING_API_RATE_LIMIT: "100000000",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${apiPath} exited with ${child.exitCode} before listening`);
    const healthy = await fetch(`${url}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { child, url };
    if (Date.now() > deadline) throw new Error(`${apiPath} did not answer /healthz within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Reads a streamed response to its end, chunk by chunk (as a client saving it would), and returns its bytes. */
async function drain(url: string): Promise<number> {
  const response = await fetch(url);
  if (!response.ok || !response.body) throw new Error(`${url} answered ${response.status}: ${await response.text()}`);
  let bytes = 0;
  for await (const chunk of response.body) bytes += (chunk as Uint8Array).byteLength;
  return bytes;
}

async function consume(
  engine: DeliberateEngine,
  sessionId: string,
  format: StreamedExportFormat,
  sample?: () => void,
): Promise<number> {
  const stream = await engine.openSessionExport(sessionId, { format });
  let length = 0;
  for await (const chunk of stream.chunks()) {
    length += chunk.length;
    sample?.();
  }
  return length;
}

/**
 * The most memory `work` holds at once: the live heap (after a full GC at each sample `work` takes,
 * so garbage not yet collected does not count) and the resident set, above their level before it.
 */
async function memoryGrowth(
  work: (sample: () => void) => Promise<unknown>,
): Promise<{ heapMb: number; rssMb: number }> {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  gc();
  gc();
  const base = process.memoryUsage();
  let heap = base.heapUsed;
  let rss = base.rss;
  const sample = () => {
    gc();
    const now = process.memoryUsage();
    heap = Math.max(heap, now.heapUsed);
    rss = Math.max(rss, now.rss);
  };
  await work(sample);
  sample();
  return { heapMb: (heap - base.heapUsed) / megabyte, rssMb: (rss - base.rss) / megabyte };
}

async function exportFigures(
  engine: DeliberateEngine,
  bare: ReturnType<typeof bareReader>,
  api: string,
  mcp: Client,
): Promise<ExportFigure[]> {
  const figures: ExportFigure[] = [];
  const bareMarkdown = await time(runs, () => bare.markdown(small.id));
  const bareJson = await time(runs, () => bare.json(small.id));
  figures.push({
    name: "HTTP GET .../export?format=markdown, 10,000 thoughts",
    summary: await time(runs, () => drain(`${api}/v1/sessions/${small.id}/export?format=markdown`)),
    bare: bareMarkdown,
    goalMs: 50,
  });
  figures.push({
    name: "HTTP GET .../export?format=json, 10,000 thoughts",
    summary: await time(runs, () => drain(`${api}/v1/sessions/${small.id}/export?format=json`)),
    bare: bareJson,
    goalMs: 50,
  });
  figures.push({
    name: "engine stream, Markdown, 10,000 thoughts (in process)",
    summary: await time(runs, () => consume(engine, small.id, "markdown")),
    bare: bareMarkdown,
    goalMs: 50,
  });
  figures.push({
    name: "MCP resources/read export.md, 10,000 thoughts (stdio)",
    summary: await time(runs, () => mcp.readResource({ uri: `deliberate://sessions/${small.id}/export.md` })),
    bare: bareMarkdown,
    goalMs: 50,
  });
  const windowed = async () => {
    for (let offset = 0; offset < small.thoughts; offset += 1000)
      await mcp.readResource({ uri: `deliberate://sessions/${small.id}/markdown?limit=1000&offset=${offset}` });
  };
  figures.push({
    name: "MCP 10 windowed reads of 1,000 (the old way), 10,000",
    summary: await time(Math.min(runs, 10), windowed, 1),
    bare: bareMarkdown,
  });
  return figures;
}

async function pageFigures(
  engine: DeliberateEngine,
  bare: ReturnType<typeof bareReader>,
  api: string,
): Promise<ExportFigure[]> {
  const window = { offset: 9900, limit: 100 };
  const barePage = await time(pageRuns, () => bare.page(large.id, window.offset, window.limit));
  return [
    {
      name: "thoughts 9,900-10,000 of 100,000, engine.readThoughtPage",
      summary: await time(pageRuns, () => engine.readThoughtPage(large.id, window)),
      bare: barePage,
      goalMs: 5,
    },
    {
      name: "thoughts 9,900-10,000 of 100,000, engine.readSessionPage",
      summary: await time(pageRuns, () => engine.readSessionPage(large.id, window)),
      bare: barePage,
      goalMs: 5,
    },
    {
      name: "HTTP GET .../thoughts?offset=9900&limit=100 of 100,000",
      summary: await time(pageRuns, () => drain(`${api}/v1/sessions/${large.id}/thoughts?offset=9900&limit=100`)),
      bare: barePage,
      goalMs: 5,
    },
  ];
}

async function memoryFigures(engine: DeliberateEngine): Promise<MemoryFigure[]> {
  const figures: MemoryFigure[] = [];
  // Streamed first: reading a session whole raises the resident set for good.
  for (const session of [small, large]) {
    const growth = await memoryGrowth((sample) => consume(engine, session.id, "markdown", sample));
    figures.push({ name: "streamed export (Markdown)", thoughts: session.thoughts, ...growth });
  }
  for (const session of [small, large]) {
    const growth = await memoryGrowth(async (sample) => {
      const record = await engine.readSession(session.id);
      const text = exportSession(record, "markdown", engine.sections);
      // Both held at once, as a resource read answering with the text holds them.
      sample();
      return text.length + record.thoughts.length;
    });
    figures.push({ name: "read whole, then rendered (before)", thoughts: session.thoughts, ...growth });
  }
  return figures;
}

export async function runExportBench(): Promise<ExportBenchReport> {
  for (const path of [apiPath, mcpPath])
    if (!existsSync(path))
      throw new Error(`No built service at ${path}: run \`pnpm bench\` from the repository root (it builds first).`);
  const directory = mkdtempSync(join(tmpdir(), "deliberate-export-bench-"));
  const databasePath = join(directory, "export.db");
  const modules = [reasoningModule, dialogModule as DeliberateModule];
  const store = await openStore<ReasoningRepositories>({ path: databasePath, modules });
  const engine = createEngine({ store, modules, models: createModelRouterFromModel(createScriptedModel([])) });
  let api: ChildProcess | undefined;
  const mcp = new Client({ name: "deliberate-export-bench", version: "1.0.0" });
  const bare = bareReader(databasePath);
  try {
    await seed(store, small);
    await seed(store, large);
    await sql`analyze`.execute(store.db);
    const started = await startApi(databasePath);
    api = started.child;
    await mcp.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [mcpPath],
        env: { PATH: process.env["PATH"] ?? "", DATABASE_PATH: databasePath, LOG_LEVEL: "warn" },
        stderr: "ignore",
      }),
    );
    // The streamed text is the whole export: checked once before timing.
    const expected = exportSession(await engine.readSession(small.id), "markdown", engine.sections);
    const served = await (await fetch(`${started.url}/v1/sessions/${small.id}/export`)).text();
    if (served !== expected)
      throw new Error(
        `the HTTP export of ${small.id} differs from exportSession's text (${served.length} vs ${expected.length} characters)`,
      );
    const figures = [
      ...(await exportFigures(engine, bare, started.url, mcp)),
      ...(await pageFigures(engine, bare, started.url)),
    ];
    return { figures, memory: await memoryFigures(engine) };
  } finally {
    await mcp.close().catch(() => {});
    if (api && api.exitCode === null) {
      api.kill("SIGTERM");
      await once(api, "exit");
    }
    bare.close();
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  }
}

export function formatExportBench(report: ExportBenchReport): string {
  const cell = (value: number) => value.toFixed(value < 10 ? 2 : 1).padStart(8);
  return [
    `(x) export, SQLite file; bare = the same rows by one better-sqlite3 statement and string concatenation, in process (ms)`,
    `  ${"".padEnd(58)}${"p50".padStart(8)}${"p95".padStart(8)}${"p99".padStart(8)}${"bare p50".padStart(9)}${"ratio".padStart(8)}${"goal".padStart(7)}`,
    ...report.figures.map(
      (figure) =>
        `  ${figure.name.padEnd(58)}${cell(figure.summary.p50)}${cell(figure.summary.p95)}${cell(figure.summary.p99)}${cell(figure.bare.p50).padStart(9)}${`${(figure.summary.p50 / figure.bare.p50).toFixed(1)}x`.padStart(8)}${
          figure.goalMs === undefined
            ? ""
            : `${String(figure.goalMs).padStart(7)}  ${figure.summary.p50 <= figure.goalMs ? "met" : "MISSED"}`
        }`,
    ),
    `  memory while exporting (growth over the level before, after a full GC; MB)`,
    ...report.memory.map(
      (figure) =>
        `  ${`${figure.name}, ${figure.thoughts.toLocaleString("en")} thoughts`.padEnd(58)}  heap +${figure.heapMb.toFixed(1)}  rss +${figure.rssMb.toFixed(1)}`,
    ),
  ].join("\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${formatExportBench(await runExportBench())}\n`);
}
