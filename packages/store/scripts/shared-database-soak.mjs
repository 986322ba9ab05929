// Soak: several processes on one SQLite file doing read-then-write transactions,
// with the store's dialect (begin immediate) and, for comparison, Kysely's default (deferred).
// Usage: node scripts/shared-database-soak.mjs [seconds=60] [processes=3]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const storeRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const seconds = Number(process.argv[2] ?? 60);
const processes = Number(process.argv[3] ?? 3);
// The runner is TypeScript shared with the test; compile it next to node_modules so its imports resolve.
const cache = join(storeRoot, "node_modules/.cache");
mkdirSync(cache, { recursive: true });
const source = readFileSync(join(storeRoot, "test/support/contention.ts"), "utf8")
  .replace('"../.."', '"../.."')
  .replace("test/support/contention-worker.mjs", "test/support/contention-worker.mjs");
const compiled = join(cache, "contention.mjs");
writeFileSync(
  compiled,
  ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } })
    .outputText,
);
const { runContention } = await import(pathToFileURL(compiled).href);

const directory = mkdtempSync(join(tmpdir(), "deliberate-soak-"));
try {
  for (const dialect of ["immediate", "deferred"]) {
    const result = await runContention({ directory, processes, durationMs: seconds * 1000, dialect });
    console.log(
      JSON.stringify({ dialect, seconds, processes, ...result, lostUpdates: result.committed - result.counter }),
    );
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
