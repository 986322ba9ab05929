#!/usr/bin/env node
// The `deliberate-mcp` command: runs the server bundle (server.cjs) with a V8 code cache, so a start skips
// parsing and compiling most of the bundle. The cache is written when a process that had none exits, next to
// the bundle (or in ~/.cache/deliberate when that folder is read-only); V8 checks it against its own version
// and flags, but against the source's length only (a cache of another bundle of the same length is taken, and
// its code runs), so the cache's name holds a hash of the bundle. A cache that does not fit is ignored (then
// rewritten). Nothing
// here changes what the server does: `node dist/server.cjs` runs the same program, only without the cache.
//
// Built as CommonJS (dist/package.json says so): an ES module entry makes Node set up its ES module loader
// before anything runs, a few milliseconds of every start that nothing before the first answer needs.
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { setFlagsFromString } from "node:v8";
import vm from "node:vm";

const bundle = join(__dirname, "server.cjs");
const bundleBytes = readFileSync(bundle);
// The bundle's content in the name: V8 would take a cache of an earlier bundle of the same length (an update).
const bundleHash = createHash("sha1").update(bundleBytes).digest("base64url");
const cacheName = `server.cjs.${bundleHash}.${process.versions.v8}-${process.arch}.cache`;

/** `<XDG_CACHE_HOME or ~/.cache>/deliberate` (an empty XDG_CACHE_HOME counts as unset), or undefined without a home. */
function userCacheFolder(): string | undefined {
  const xdg = process.env["XDG_CACHE_HOME"];
  try {
    return join(xdg ? xdg : join(homedir(), ".cache"), "deliberate");
  } catch {
    return undefined; // no home directory: the caches stay next to the bundle, or off
  }
}

const userCache = userCacheFolder();
const cacheFolders = userCache === undefined ? [dirname(bundle)] : [dirname(bundle), userCache];

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
      removeSupersededCaches(folder);
      return;
    } catch {
      // read-only: try the next folder
    }
  }
}

/** Deletes the caches of earlier bundles (same engine) in `folder`: each update would otherwise leave one behind. */
function removeSupersededCaches(folder: string): void {
  const engineSuffix = `.${process.versions.v8}-${process.arch}.cache`;
  for (const name of readdirSync(folder)) {
    if (name === cacheName || !name.startsWith("server.cjs.") || !name.endsWith(engineSuffix)) continue;
    try {
      unlinkSync(join(folder, name));
    } catch {
      // gone already, or not ours to delete
    }
  }
}

/**
 * The bundle's text. An ASCII file is taken byte for byte as a one-byte string (no UTF-8 decoding, and V8
 * scans and hashes half the bytes of a two-byte string); anything else is decoded as UTF-8.
 */
function readSource(): string {
  const bytes = bundleBytes;
  const text = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  return text.replace(/^#!.*/, "");
}

/**
 * Node 22 and later keep a code cache of the other modules this process loads from disk (the SQLite
 * driver's JavaScript now, the provider SDKs on a first model call), in the user's cache folder. Node checks
 * each entry against its file's content, so an update is never run from a stale entry; a folder it cannot
 * write leaves the cache off. NODE_COMPILE_CACHE, when set, wins (Node has then enabled it already), and
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
function enableModuleCompileCache(): void {
  const enable = (Module as { enableCompileCache?: (directory?: string) => unknown }).enableCompileCache;
  if (typeof enable !== "function" || userCache === undefined) return; // Node 20, or no home
  try {
    enable(join(userCache, "node-compile-cache"));
  } catch {
    // no cache: the modules load as they would without one
  }
}

// The server sets this V8 flag as it starts (main.ts: runaway regular expressions fall back to the linear
// engine). V8 checks a cache against the flags in force, so they must be the same when the cache is read as
// when it was written (at exit, after the server set it): set it before compiling, or every start recompiles.
setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
enableModuleCompileCache();

const cachedData = readCache();
const script = new vm.Script(Module.wrap(readSource()), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
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
