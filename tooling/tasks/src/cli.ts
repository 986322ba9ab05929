import { existsSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { planTasks } from "./plan.ts";
import { runTasks } from "./run-tasks.ts";
import { summarize } from "./summary.ts";
import { type StartPostgres, withTestPostgres } from "./test-postgres.ts";
import { readWorkspace } from "./workspace.ts";

const usage = `usage: tasks [--filter <package>]... [--own-test-runs] [--engine-dialect sqlite|postgres] [--test-postgres]
             [--concurrency <n>] [--without-builds] <script>...
  Runs each named script in every workspace package that has it (\`//#name\` is the root's), once the
  package's build and its workspace dependencies' builds have passed (--without-builds: no builds),
  all at once, output prefixed.
  --own-test-runs     also the packages marked "deliberate": { "testRun": "own" } in their package.json
                      (under --engine-dialect postgres, those also marked "engineDialect": true)
  --engine-dialect    DELIBERATE_TEST_ENGINE_DIALECT for every task
  --test-postgres     one embedded Postgres for the whole run, as DELIBERATE_TEST_DATABASE_URL`;

export interface CliArguments {
  scripts: string[];
  filter: string[];
  concurrency?: number;
  withoutBuilds: boolean;
  ownTestRuns: boolean;
  testPostgres: boolean;
  engineDialect?: "sqlite" | "postgres";
}

const flags = {
  "--without-builds": "withoutBuilds",
  "--own-test-runs": "ownTestRuns",
  "--test-postgres": "testPostgres",
} as const;

/** The command line, or the message saying what is wrong with it. */
export function parseArguments(argv: readonly string[]): CliArguments | { error: string } {
  const parsed: CliArguments = {
    scripts: [],
    filter: [],
    withoutBuilds: false,
    ownTestRuns: false,
    testPostgres: false,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    if (argument === "--filter" || argument === "--concurrency" || argument === "--engine-dialect") {
      const value = argv[index + 1];
      if (value === undefined || value.startsWith("--")) return { error: `${argument} needs a value` };
      index += 1;
      if (argument === "--filter") parsed.filter.push(value);
      else if (argument === "--engine-dialect") {
        if (value !== "sqlite" && value !== "postgres")
          return { error: `--engine-dialect must be sqlite or postgres, got "${value}"` };
        parsed.engineDialect = value;
      } else {
        if (!/^[1-9][0-9]*$/.test(value))
          return { error: `--concurrency must be a whole number of at least 1, got "${value}"` };
        parsed.concurrency = Number(value);
      }
    } else if (argument in flags) parsed[flags[argument as keyof typeof flags]] = true;
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
  /** The environment the tasks start from (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Starts the shared Postgres for --test-postgres (default: an embedded one). */
  startPostgres?: StartPostgres;
}

const processContext = (): CliContext => ({
  cwd: process.cwd(),
  write: (text) => void process.stdout.write(text),
  writeError: (text) => void process.stderr.write(text),
});

/** The tasks' environment: the context's, with the engine's dialect when the command line names one. */
function taskEnvironment(parsed: CliArguments, context: CliContext): NodeJS.ProcessEnv {
  const env = context.env ?? process.env;
  return parsed.engineDialect ? { ...env, DELIBERATE_TEST_ENGINE_DIALECT: parsed.engineDialect } : env;
}

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
  const env = taskEnvironment(parsed, context);
  let tasks: ReturnType<typeof planTasks>;
  try {
    const options = {
      tasks: parsed.scripts,
      filter: parsed.filter,
      withoutBuilds: parsed.withoutBuilds,
      ownTestRuns: parsed.ownTestRuns,
    };
    tasks = planTasks(readWorkspace(root), { ...options, engineDialect: env["DELIBERATE_TEST_ENGINE_DIALECT"] });
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
  const run = async (taskEnv: NodeJS.ProcessEnv) => {
    const results = await runTasks(tasks, {
      rootDirectory: root,
      concurrency: parsed.concurrency,
      signal: controller.signal,
      write: context.write,
      env: taskEnv,
    });
    context.write(summarize(results, performance.now() - started));
    if (received) return 128 + constants.signals[received];
    return results.every((result) => result.status === "passed") ? 0 : 1;
  };
  try {
    if (!parsed.testPostgres) return await run(env);
    return await withTestPostgres(env, run, context.startPostgres).catch((error: Error) => {
      context.writeError(`tasks: --test-postgres: ${error.message}\n`);
      return 1;
    });
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}

// `node --import tsx tooling/tasks/src/cli.ts <script>...` (the root `pnpm test`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
