import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import ts from "typescript";

const storeRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(join(storeRoot, "package.json"));

export interface ContentionResult {
  committed: number;
  locked: number;
  otherErrors: number;
  firstError?: string;
  counter: number;
  events: number;
}

/**
 * Compiles the store's SQLite dialect (and the module of its own it imports) to plain JS in `directory`,
 * importing kysely by absolute URL, and returns its URL.
 */
function compileDialect(directory: string, kyselyUrl: string): string {
  for (const name of ["sqlite-query-compiler", "immediate-sqlite-dialect"]) {
    const source = readFileSync(join(storeRoot, `src/${name}.ts`), "utf8");
    const output = ts
      .transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
      .outputText.replace(/from "kysely"/g, `from ${JSON.stringify(kyselyUrl)}`)
      .replace(/from "\.\/([\w-]+)\.ts"/g, 'from "./$1.mjs"');
    writeFileSync(join(directory, `${name}.mjs`), output);
  }
  return pathToFileURL(join(directory, "immediate-sqlite-dialect.mjs")).href;
}

/**
 * Runs `processes` separate Node processes on one SQLite file in `directory`, each doing
 * read-then-write transactions for `durationMs`, with the store's dialect (`immediate`) or
 * Kysely's default one (`deferred`). Returns the summed outcome and the final counter.
 */
export async function runContention(options: {
  directory: string;
  processes: number;
  durationMs: number;
  dialect: "immediate" | "deferred";
}): Promise<ContentionResult> {
  mkdirSync(options.directory, { recursive: true });
  const kyselyUrl = pathToFileURL(require.resolve("kysely")).href;
  const sqliteUrl = pathToFileURL(require.resolve("better-sqlite3")).href;
  const dialectUrl = options.dialect === "deferred" ? "deferred" : compileDialect(options.directory, kyselyUrl);
  const path = join(options.directory, `shared-${options.dialect}.db`);
  const setup = new BetterSqlite3(path);
  setup.pragma("journal_mode = WAL");
  setup.exec(
    "drop table if exists counter; drop table if exists events; create table counter (id integer primary key, value integer not null); insert into counter values (1, 0); create table events (process integer, at integer)",
  );
  setup.close();
  const worker = join(storeRoot, "test/support/contention-worker.mjs");
  const outputs = await Promise.all(
    Array.from(
      { length: options.processes },
      () =>
        new Promise<string>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [worker, dialectUrl, path, String(options.durationMs), kyselyUrl, sqliteUrl],
            { stdio: ["ignore", "pipe", "pipe"] },
          );
          let stdout = "";
          let stderr = "";
          child.stdout.on("data", (chunk) => (stdout += chunk));
          child.stderr.on("data", (chunk) => (stderr += chunk));
          child.on("error", reject);
          child.on("close", (code) =>
            code === 0 ? resolve(stdout) : reject(new Error(`worker exited ${code}: ${stderr}`)),
          );
        }),
    ),
  );
  const results = outputs.map((line) => JSON.parse(line) as Omit<ContentionResult, "counter" | "events">);
  const check = new BetterSqlite3(path, { readonly: true });
  const counter = (check.prepare("select value from counter where id = 1").get() as { value: number }).value;
  const events = (check.prepare("select count(*) as n from events").get() as { n: number }).n;
  check.close();
  return {
    committed: results.reduce((sum, result) => sum + result.committed, 0),
    locked: results.reduce((sum, result) => sum + result.locked, 0),
    otherErrors: results.reduce((sum, result) => sum + result.otherErrors, 0),
    ...(results.find((result) => result.firstError)?.firstError
      ? { firstError: results.find((result) => result.firstError)?.firstError as string }
      : {}),
    counter,
    events,
  };
}
