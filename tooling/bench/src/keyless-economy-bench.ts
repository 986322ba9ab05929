import { pathToFileURL } from "node:url";
import { createHostContext, expandNeedsCompletion, needsCompletionSchema } from "@deliberate/contracts";
import { dialogModule } from "@deliberate/dialog";
import {
  createEngine,
  type DeliberateEngine,
  type DeliberateModule,
  type HostPromptForm,
  hostModelRouter,
  randomIds,
} from "@deliberate/engine";
import { createKnowledgeGraphModule } from "@deliberate/knowledge-graph";
import { reasoningModule } from "@deliberate/reasoning";
import { openStore, type Store } from "@deliberate/store";
import { type KeylessCase, presetCases, scriptedHostAnswer, toolCases } from "./keyless-economy-cases.ts";

// Issue 30, keyless economy: what a host with no API key handles to finish each model-backed call. Per tool,
// preset and a default dialog session: the rounds (needs_completion steps) against the minimum (the chain of
// dependent model calls), the prompt bytes (every step's JSON: what the host reads to answer), the answer
// bytes (every reasoning_submit's arguments) and the result bytes. Each call runs twice in this run: with the
// prompts in full in every step (the form before issue 30, still served with DELIBERATE_HOST_PROMPTS=full) and
// compact (each text block and schema once per call). In process, in-memory SQLite; bytes are UTF-8 JSON.
// Goal: the five presets' prompt bytes at least 30% below the full form's, nothing a model needs left out
// (every compact step is expanded back to its full prompts by the host here, and answered from those).
// Run alone: BENCH_ONLY=y pnpm bench

const goal = 0.3;

export interface CallFigures {
  rounds: number;
  /** Tool calls the host makes: the call itself and one reasoning_submit per step. */
  calls: number;
  promptBytes: number;
  answerBytes: number;
  resultBytes: number;
}

export interface EconomyRow {
  label: string;
  kind: "tool" | "preset" | "dialog";
  minimumRounds: number;
  full: CallFigures;
  compact: CallFigures;
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");
const emptyFigures = (): CallFigures => ({ rounds: 0, calls: 0, promptBytes: 0, answerBytes: 0, resultBytes: 0 });

function addFigures(into: CallFigures, more: CallFigures): void {
  into.rounds += more.rounds;
  into.calls += more.calls;
  into.promptBytes += more.promptBytes;
  into.answerBytes += more.answerBytes;
  into.resultBytes += more.resultBytes;
}

/** One call driven to its end by the scripted host, which keeps one host context per call (as a real host must). */
async function driveCall(
  engine: DeliberateEngine,
  tool: string,
  args: Record<string, unknown>,
): Promise<{ result: Record<string, unknown>; figures: CallFigures }> {
  const figures = emptyFigures();
  const known = createHostContext();
  let result = await engine.invoke(tool, args);
  figures.calls += 1;
  while (result["status"] === "needs_completion") {
    const step = needsCompletionSchema.parse(result);
    figures.rounds += 1;
    figures.promptBytes += bytes(result);
    if (figures.rounds > 60) throw new Error(`${tool} did not finish within 60 rounds`);
    const prompts = expandNeedsCompletion(step, known);
    const submission = {
      resume_token: step.resume_token,
      answers: prompts.map((prompt) => ({ prompt_id: prompt.id, answer: scriptedHostAnswer(prompt) })),
    };
    figures.answerBytes += bytes(submission);
    result = await engine.invoke("reasoning_submit", submission);
    figures.calls += 1;
  }
  figures.resultBytes += bytes(result);
  return { result, figures };
}

async function withEngine<T>(form: HostPromptForm, work: (engine: DeliberateEngine) => Promise<T>): Promise<T> {
  const modules = [
    reasoningModule,
    dialogModule,
    createKnowledgeGraphModule({ stateSecret: "bench" }),
  ] as DeliberateModule[];
  const store: Store = await openStore({ path: ":memory:", modules });
  try {
    return await work(createEngine({ store, modules, models: hostModelRouter, ids: randomIds, hostPrompts: form }));
  } finally {
    await store.close();
  }
}

async function measureCase(testCase: KeylessCase, form: HostPromptForm): Promise<CallFigures> {
  return withEngine(form, async (engine) => {
    const run = async (tool: string, args: Record<string, unknown>) => (await driveCall(engine, tool, args)).result;
    const setup = testCase.setup ? await testCase.setup(run) : {};
    const args = typeof testCase.args === "function" ? testCase.args(setup) : testCase.args;
    const { result, figures } = await driveCall(engine, testCase.tool, args);
    const failed = testCase.preset
      ? (result["execution_result"] as { status?: string } | undefined)?.status !== "completed"
      : false;
    if (failed) throw new Error(`${testCase.label} did not complete: ${JSON.stringify(result).slice(0, 400)}`);
    return figures;
  });
}

/** A default dialog session: start it, then run exchanges until it stops, answering every step. */
async function measureDialog(form: HostPromptForm): Promise<CallFigures> {
  return withEngine(form, async (engine) => {
    const figures = emptyFigures();
    const started = await engine.invoke("start_reasoning_session", {
      topic: "Should we move the services into one monorepo?",
    });
    figures.calls += 1;
    figures.resultBytes += bytes(started);
    for (let exchange = 0; exchange < 20; exchange += 1) {
      const { result, figures: call } = await driveCall(engine, "run_reasoning_exchange", {
        session_id: started["session_id"],
      });
      addFigures(figures, call);
      if (result["status"] !== "in_progress") return figures;
    }
    throw new Error("the default dialog session did not stop within 20 exchanges");
  });
}

/** Every case in both forms. */
export async function runKeylessEconomyBench(): Promise<EconomyRow[]> {
  const rows: EconomyRow[] = [];
  for (const testCase of [...toolCases, ...presetCases]) {
    rows.push({
      label: testCase.label,
      kind: testCase.preset ? "preset" : "tool",
      minimumRounds: testCase.minimumRounds,
      full: await measureCase(testCase, "full"),
      compact: await measureCase(testCase, "compact"),
    });
  }
  // Each exchange depends on the last: per iteration the producer, then the reviewer (default: 3 iterations).
  rows.push({
    label: "dialog default session",
    kind: "dialog",
    minimumRounds: 6,
    full: await measureDialog("full"),
    compact: await measureDialog("compact"),
  });
  return rows;
}

const percent = (after: number, before: number) =>
  before === 0 ? "    -" : `${(((after - before) / before) * 100).toFixed(0)}%`.padStart(5);

function formatRow(label: string, minimumRounds: number, full: CallFigures, compact: CallFigures): string {
  const rounds = `${compact.rounds}/${minimumRounds}`.padStart(7);
  const cell = (value: number) => value.toLocaleString("en-US").padStart(9);
  return `  ${label.padEnd(38)}${rounds}${String(compact.calls).padStart(6)}${cell(full.promptBytes)}${cell(compact.promptBytes)}${percent(compact.promptBytes, full.promptBytes).padStart(7)}${cell(compact.answerBytes)}${cell(compact.resultBytes)}`;
}

/** The table: per call, then totals per kind, and the goal. */
export function formatKeylessEconomyBench(rows: readonly EconomyRow[]): string {
  const lines = [
    "(y) keyless economy: what a host with no API key handles per call (scripted host, free text ~150 chars per answer field)",
    `  ${"call".padEnd(38)}${"rnd/min".padStart(7)}${"calls".padStart(6)}${"prompt B".padStart(9)}${"compact".padStart(9)}${"change".padStart(7)}${"answer B".padStart(9)}${"result B".padStart(9)}`,
    "  (prompt B: every needs_completion step in the full form; compact: the same steps as sent now)",
  ];
  const totals: Record<EconomyRow["kind"], { full: CallFigures; compact: CallFigures; minimum: number }> = {
    tool: { full: emptyFigures(), compact: emptyFigures(), minimum: 0 },
    preset: { full: emptyFigures(), compact: emptyFigures(), minimum: 0 },
    dialog: { full: emptyFigures(), compact: emptyFigures(), minimum: 0 },
  };
  for (const row of rows) {
    if (row.full.rounds !== row.compact.rounds)
      throw new Error(`${row.label}: ${row.full.rounds} rounds in the full form but ${row.compact.rounds} compact`);
    lines.push(formatRow(row.label, row.minimumRounds, row.full, row.compact));
    addFigures(totals[row.kind].full, row.full);
    addFigures(totals[row.kind].compact, row.compact);
    totals[row.kind].minimum += row.minimumRounds;
  }
  lines.push("  totals");
  for (const kind of ["tool", "preset", "dialog"] as const)
    lines.push(formatRow(`${kind}s`, totals[kind].minimum, totals[kind].full, totals[kind].compact));
  const presets = totals.preset;
  const cut = 1 - presets.compact.promptBytes / presets.full.promptBytes;
  const extra = rows
    .filter((row) => row.compact.rounds > row.minimumRounds)
    .map((row) => `${row.label} ${row.compact.rounds}/${row.minimumRounds}`);
  lines.push(
    `  goal: the five presets' prompt bytes at least ${goal * 100}% below the full form: ${presets.full.promptBytes.toLocaleString("en-US")} -> ${presets.compact.promptBytes.toLocaleString("en-US")} B, ${(cut * 100).toFixed(1)}% less ${cut >= goal ? "(met)" : "(MISSED)"}`,
    `  rounds above the minimum: ${extra.length === 0 ? "none" : extra.join(", ")}`,
  );
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.stdout.write(`${formatKeylessEconomyBench(await runKeylessEconomyBench())}\n`);
}
