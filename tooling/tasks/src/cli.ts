import { existsSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { planTasks } from "./plan.ts";
import { runTasks } from "./run-tasks.ts";
import { summarize } from "./summary.ts";
import { readWorkspace } from "./workspace.ts";

const usage = `usage: tasks [--filter <package>]... [--concurrency <n>] [--without-builds] <script>...
  Runs each named script in every workspace package that has it (\`//#name\` is the root's), once the
  package's build and its workspace dependencies' builds have passed (--without-builds: no builds),
  all at once, output prefixed.`;

export interface CliArguments {
  scripts: string[];
  filter: string[];
  concurrency?: number;
  withoutBuilds: boolean;
}

/** The command line, or the message saying what is wrong with it. */
export function parseArguments(argv: readonly string[]): CliArguments | { error: string } {
  const parsed: CliArguments = { scripts: [], filter: [], withoutBuilds: false };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === "--filter" || argument === "--concurrency") {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith("--")) return { error: `${argument} needs a value` };
      index += 1;
      if (argument === "--filter") parsed.filter.push(value);
      else {
        if (!/^[1-9][0-9]*$/.test(value)) return { error: `--concurrency must be a whole number of at least 1, got "${value}"` };
        parsed.concurrency = Number(value);
      }
    } else if (argument === "--without-builds") parsed.withoutBuilds = true;
    else if (argument.startsWith("--")) return { error: `unknown option ${argument}` };
    else parsed.scripts.push(argument);
  }
  if (parsed.scripts.length === 0) return { error: "name at least one script" };
  return parsed;
}

/** The nearest folder at or above `from` with a pnpm-workspace.yaml. */
export function findWorkspaceRoot(from: string): string | undefined {
  for (let directory = resolve(from); ; directory = dirname(directory)) {
    if (existsSync(join(directory, "pnpm-workspace.yaml"))) return directory;
    if (dirname(directory) === directory) return undefined;
  }
}

export interface CliContext {
  cwd: string;
  /** The scripts' output and the summary. */
  write: (text: string) => void;
  /** What is wrong with the command line. */
  writeError: (text: string) => void;
}

const processContext = (): CliContext => ({ cwd: process.cwd(), write: (text) => void process.stdout.write(text), writeError: (text) => void process.stderr.write(text) });

/** Runs the command line; resolves with the exit code (0 all passed, 1 a task failed, 2 a usage error, 128 + n after signal n). */
export async function main(argv: readonly string[], context: CliContext = processContext()): Promise<number> {
  const parsed = parseArguments(argv);
  if ("error" in parsed) {
    context.writeError(`tasks: ${parsed.error}\n${usage}\n`);
    return 2;
  }
  const root = findWorkspaceRoot(context.cwd);
  if (root === undefined) {
    context.writeError(`tasks: no pnpm-workspace.yaml in ${context.cwd} or above\n`);
    return 2;
  }
  let tasks: ReturnType<typeof planTasks>;
  try {
    tasks = planTasks(readWorkspace(root), { tasks: parsed.scripts, filter: parsed.filter, withoutBuilds: parsed.withoutBuilds });
  } catch (error) {
    context.writeError(`tasks: ${(error as Error).message}\n`);
    return 2;
  }
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  const onSignal = (signal: NodeJS.Signals) => {
    received ??= signal;
    controller.abort();
  };
  for (const signal of signals) process.on(signal, onSignal);
  const started = performance.now();
  try {
    const results = await runTasks(tasks, { rootDirectory: root, concurrency: parsed.concurrency, signal: controller.signal, write: context.write });
    context.write(summarize(results, performance.now() - started));
    if (received) return 128 + constants.signals[received];
    return results.every((result) => result.status === "passed") ? 0 : 1;
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}

// `node --import tsx tooling/tasks/src/cli.ts <script>...` (the root `pnpm test`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
