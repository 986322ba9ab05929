#!/usr/bin/env node
// The `deliberate-mcp` command: runs the server bundle (server.cjs) with a V8
// code cache, so a start skips parsing and compiling most of the bundle. The
// cache is written when a process that had none exits, next to the bundle (or
// in ~/.cache/deliberate when that folder is read-only); V8 checks it against
// the bundle's source and its own version and flags, and a cache that does not
// fit is ignored (then rewritten). Nothing here changes what the server does:
// `node dist/server.cjs` runs the same program, only without the cache.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import vm from "node:vm";

const bundle = fileURLToPath(new URL("./server.cjs", import.meta.url));
const cacheName = `server.cjs.${process.versions.v8}-${process.arch}.cache`;
const cacheFolders = [dirname(bundle), join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "deliberate")];

function readCache(): Buffer | undefined {
  for (const folder of cacheFolders) {
    try {
      return readFileSync(join(folder, cacheName));
    } catch {
      // not there: try the next folder
    }
  }
  return undefined;
}

function writeCache(data: Buffer): void {
  for (const folder of cacheFolders) {
    try {
      mkdirSync(folder, { recursive: true });
      const temporary = join(folder, `${cacheName}.${process.pid}`);
      writeFileSync(temporary, data);
      renameSync(temporary, join(folder, cacheName));
      return;
    } catch {
      // read-only: try the next folder
    }
  }
}

// The server sets this V8 flag as it starts (main.ts: runaway regular expressions fall back to the linear
// engine). V8 checks a cache against the flags in force, so they must be the same when the cache is read as
// when it was written (at exit, after the server set it): set it before compiling, or every start recompiles.
setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");

const source = readFileSync(bundle, "utf8").replace(/^#!.*/, "");
const cachedData = readCache();
const script = new vm.Script(Module.wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
// Code compiled from a cache cannot run import() itself: the bundle's dynamic imports (provider
// SDKs, DELIBERATE_MODULES) come here (see tsup.config.ts). Specifiers are absolute URLs or
// packages, resolved from this folder, the bundle's own.
(globalThis as { __deliberateImport?: (specifier: string) => Promise<unknown> }).__deliberateImport = (specifier) =>
  import(specifier);
if (cachedData === undefined || script.cachedDataRejected) {
  // At exit the cache holds every function compiled during the run, not only the top level.
  process.once("exit", () => writeCache(script.createCachedData()));
}
const serverModule = new Module(bundle);
serverModule.filename = bundle;
const require = createRequire(bundle);
(script.runInThisContext() as (...parameters: unknown[]) => void).call(
  serverModule.exports,
  serverModule.exports,
  require,
  serverModule,
  bundle,
  dirname(bundle),
);
