import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { dialogModule } from "@deliberate/dialog";
import { createEngine, type DeliberateModule, exportSession } from "@deliberate/engine";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { type ReasoningRepositories, reasoningModule } from "@deliberate/reasoning";
import { openStore, rebuildInvocationRollups } from "@deliberate/store";
import { sql } from "kysely";
import { summarize, type Summary } from "./statistics.ts";

// Issue 17 (s), on a SQLite file as the services use it:
//   exporting a session of 10,000 thoughts (JSON, Markdown, Mermaid), goal <= 50 ms;
//   reasoning_metrics summary, by_mode and fallbacks over 1,000,000 invocation rows, goal <= 200 ms.
// Run alone: pnpm --filter @deliberate/bench exec tsx src/scale-bench.ts

const thoughtCount = 10_000;
const invocationCount = Number(process.env["BENCH_INVOCATIONS"] ?? 1_000_000);
const runs = 10;
/** Keeps the seeded database here between runs (profiling); by default a temporary folder is used and removed. */
const keptDirectory = process.env["BENCH_SCALE_DIRECTORY"];

export interface ScaleResult {
  name: string;
  goalMs: number;
  summary: Summary;
}

const tools = [
  "reasoning_linear",
  "reasoning_tree",
  "reasoning_graph",
  "reasoning_mcts",
  "reasoning_decision",
  "reasoning_checkpoint",
  "reasoning_divergent",
  "reasoning_evidence",
  "run_reasoning_exchange",
  "agent_intent_decide",
];
const operations = ["create", "list", "generate", "score"];
const errors = ["PROVIDER_TIMEOUT", "MODEL_OUTPUT_INVALID", "PROVIDER_RATE_LIMITED"];

async function time(work: () => Promise<unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs + 1; run += 1) {
    const started = performance.now();
    await work();
    if (run > 0) times.push(performance.now() - started);
  }
  return times;
}

export async function runScaleBench(): Promise<ScaleResult[]> {
  const directory = keptDirectory ?? mkdtempSync(join(tmpdir(), "deliberate-scale-bench-"));
  if (keptDirectory !== undefined) mkdirSync(keptDirectory, { recursive: true });
  const seeded = keptDirectory !== undefined && existsSync(join(keptDirectory, "scale.db"));
  const modules = [reasoningModule, dialogModule as DeliberateModule];
  const store = await openStore<ReasoningRepositories>({ path: join(directory, "scale.db"), modules });
  const engine = createEngine({ store, modules, models: createModelRouterFromModel(createScriptedModel([])) });
  const results: ScaleResult[] = [];
  try {
    // A session of 10,000 thoughts, each following the previous one.
    const sessionId = "ses_scale_export";
    const now = new Date().toISOString();
    if (!seeded)
      await store.transaction(async (repositories) => {
        await repositories.sessions.create({ id: sessionId, mode: "linear", now });
        for (let index = 0; index < thoughtCount; index += 1) {
          await repositories.thoughts.append({
            id: `th_${index}`,
            session_id: sessionId,
            parent_id: index === 0 ? null : `th_${index - 1}`,
            mode: "linear",
            content: `Step ${index}: weigh the cache hit rate against the invalidation cost for tier ${index % 7}.`,
            confidence: 0.5 + (index % 5) / 10,
            created_at: now,
          });
        }
      });
    for (const format of ["json", "markdown", "mermaid"] as const) {
      const times = await time(async () => {
        const record = await engine.readSession(sessionId);
        if (record.thoughts.length !== thoughtCount)
          throw new Error(`expected ${thoughtCount} thoughts, read ${record.thoughts.length}`);
        exportSession(record, format, engine.sections);
      });
      results.push({
        name: `export ${thoughtCount.toLocaleString("en")} thoughts, ${format} (read + render)`,
        goalMs: 50,
        summary: summarize(times),
      });
    }

    // 1,000,000 invocation rows across tools, operations, providers and outcomes, made in SQL.
    if (!seeded)
      await sql`
      with recursive counter(n) as (select 0 union all select n + 1 from counter where n < ${invocationCount - 1})
      insert into invocations (id, tool, operation, session_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, model_calls, latency_ms, success, error_code, error_message, quality, created_at)
      select 'inv_' || n,
             ${sql.raw(`case n % ${tools.length} ${tools.map((tool, index) => `when ${index} then '${tool}'`).join(" ")} end`)},
             ${sql.raw(`case (n / ${tools.length}) % ${operations.length} ${operations.map((operation, index) => `when ${index} then '${operation}'`).join(" ")} end`)},
             'ses_' || (n % 5000),
             case n % 3 when 0 then 'anthropic' when 1 then 'openai' else 'host' end,
             'model-' || (n % 3),
             (n * 7) % 2000, (n * 13) % 800, 0, 0, 1 + n % 3,
             ((n * 7919) % 100000) / 10.0,
             case when n % 20 = 0 then 0 else 1 end,
             ${sql.raw(`case when n % 20 = 0 then (case (n / 20) % ${errors.length} ${errors.map((code, index) => `when ${index} then '${code}'`).join(" ")} end) else null end`)},
             case when n % 20 = 0 then 'failed' else null end,
             null,
             '2026-11-' || printf('%02d', 1 + n % 28) || 'T10:00:00.000Z'
      from counter`.execute(store.db);
    // The rollups and latency histogram kept with the rows, built once for the rows seeded in SQL.
    if (!seeded) {
      await rebuildInvocationRollups(store.db);
      await sql`analyze`.execute(store.db);
    }
    for (const query of ["summary", "by_mode", "fallbacks"] as const) {
      const times = await time(async () => {
        const result = await engine.invoke("reasoning_metrics", { query });
        if (query === "summary" && (result["summary"] as { total_calls: number }).total_calls < invocationCount)
          throw new Error(`summary counted ${JSON.stringify(result["summary"])}`);
      });
      results.push({
        name: `reasoning_metrics ${query} over ${invocationCount.toLocaleString("en")} invocation rows`,
        goalMs: 200,
        summary: summarize(times),
      });
    }
  } finally {
    await store.close();
    if (keptDirectory === undefined) rmSync(directory, { recursive: true, force: true });
  }
  return results;
}

export function formatScaleBench(results: readonly ScaleResult[]): string {
  const cell = (value: number) => value.toFixed(1).padStart(9);
  return [
    `(s) scale, SQLite file, n=${runs} each (ms)`,
    `  ${"".padEnd(66)}${"p50".padStart(9)}${"p95".padStart(9)}${"p99".padStart(9)}${"goal".padStart(9)}`,
    ...results.map(
      (result) =>
        `  ${result.name.padEnd(66)}${cell(result.summary.p50)}${cell(result.summary.p95)}${cell(result.summary.p99)}${cell(result.goalMs)}  ${result.summary.p50 <= result.goalMs ? "met" : "MISSED"}`,
    ),
  ].join("\n");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${formatScaleBench(await runScaleBench())}\n`);
}
