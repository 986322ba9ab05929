import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

const requireHere = createRequire(import.meta.url);

/**
 * The better-sqlite3 package this Node runs. On Node 22 and later: better-sqlite3 13 (installed as
 * `better-sqlite3-napi`), built on Node-API with its binaries inside the package, so it loads on any Node
 * 22+ without a compile or a rebuild, and its objects can be garbage-collected anywhere: better-sqlite3 12
 * derives them from node::ObjectWrap, whose destructor since Node 24.19 asserts a current environment, so a
 * collection outside JavaScript (V8's scavenge and memory-reducer tasks) aborts the process. On Node 20,
 * which 13 does not support: better-sqlite3 12, built for the Node that installed it. Same API on both.
 */
export function sqliteDriverPackage(
  nodeVersion: string = process.versions.node,
): "better-sqlite3" | "better-sqlite3-napi" {
  return Number(nodeVersion.split(".")[0]) >= 22 ? "better-sqlite3-napi" : "better-sqlite3";
}

/** The better-sqlite3 `Database` class for this Node (see `sqliteDriverPackage`); throws when it does not load. */
export function loadSqliteDriver(): typeof BetterSqlite3 {
  return requireHere(sqliteDriverPackage()) as typeof BetterSqlite3;
}

/** The entry file of this Node's better-sqlite3 (for a worker thread to load the same driver). */
export function sqliteDriverEntry(): string {
  return requireHere.resolve(sqliteDriverPackage());
}

/** The folder of this Node's better-sqlite3 package. */
export function sqliteDriverFolder(): string {
  return requireHere.resolve(`${sqliteDriverPackage()}/package.json`).replace(/[\\/]package\.json$/, "");
}
