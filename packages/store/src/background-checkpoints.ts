import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";
import { sqliteDriverEntry } from "./sqlite-driver.ts";

/** How often the checkpointer looks at the WAL by default (it checkpoints only when the WAL was written since). */
export const defaultCheckpointIntervalMs = 200;

/**
 * The WAL size past which the checkpointer starts it over (RESTART) by default:
 * 64 MiB (16,384 pages of 4 KiB). Writers wait while a RESTART copies the
 * frames committed since the PASSIVE checkpoint before it and syncs the file
 * (measured under 50 connections of writes: 2–70 ms each); a larger WAL makes
 * those waits rarer (at 16 MiB, one every 0.6 s).
 */
export const defaultRestartBytes = 64 * 1024 * 1024;

export interface BackgroundCheckpointOptions {
  /** How often the WAL is looked at (default 200 ms). */
  intervalMs?: number;
  /** WAL size past which it is started over with a RESTART checkpoint (default 64 MiB); writers wait for that one. */
  restartBytes?: number;
  /** Called when the checkpointer fails (SQLite's own checkpoints are then turned back on). */
  onError?: (error: Error) => void;
}

/** The running checkpointer; `stop()` closes its connection (waiting at most a second for it). */
export interface BackgroundCheckpoints {
  stop(): void;
}

// The worker: its own connection to the file, a PASSIVE checkpoint whenever the WAL changed since the last one.
// PASSIVE never blocks the serving connection's readers or writers; the checkpoint's two fsyncs (synchronous=NORMAL)
// happen on this thread instead of inside a COMMIT on the event loop.
const workerSource = `
const { parentPort, workerData } = require("node:worker_threads");
const { statSync } = require("node:fs");
const Database = require(workerData.driver);
const stopped = new Int32Array(workerData.stopped);
let db;
try {
  db = new Database(workerData.path, { fileMustExist: true });
  db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
} catch (error) {
  parentPort.postMessage({ error: String(error && error.message || error) });
  Atomics.store(stopped, 0, 1);
  Atomics.notify(stopped, 0);
  process.exit(0);
}
let last = "";
const timer = setInterval(() => {
  let stamp = "";
  try {
    const stat = statSync(workerData.path + "-wal");
    stamp = stat.size + ":" + stat.mtimeMs;
  } catch {}
  if (stamp === "" || stamp === last) return;
  last = stamp;
  try {
    const [result] = db.pragma("wal_checkpoint(PASSIVE)");
    // Under steady writes a PASSIVE checkpoint rarely finds every frame copied when the next COMMIT starts, so
    // SQLite never starts the WAL over: past the limit, one RESTART does (writers wait for it, briefly: the
    // frames were just copied).
    if (result && result.log * workerData.pageSize > workerData.restartBytes) db.pragma("wal_checkpoint(RESTART)");
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
}, workerData.intervalMs);
parentPort.on("message", (message) => {
  if (message !== "stop") return;
  clearInterval(timer);
  try { db.close(); } catch {}
  Atomics.store(stopped, 0, 1);
  Atomics.notify(stopped, 0);
  parentPort.close();
});
`;

/**
 * Moves SQLite's WAL checkpoints off the serving connection. With
 * `synchronous=NORMAL` a checkpoint fsyncs the WAL and the database file; SQLite
 * runs it inside the COMMIT that crosses 1,000 WAL pages, so the event loop
 * stalls for the fsyncs (on this machine several milliseconds, every few
 * dozen batches under load). Here the serving connection's automatic
 * checkpoints are turned off and a worker thread with its own connection
 * checkpoints (PASSIVE) every `intervalMs` when the WAL was written since,
 * and once the WAL holds more than `restartBytes` starts it over (RESTART: the
 * serving connection's next writer waits for it, a short wait since the frames
 * were just copied; SQLite's own checkpoints stall it every 1,000 pages).
 * Durability is unchanged: a COMMIT still returns once its frames are in the
 * WAL; checkpoints only copy committed frames into the database file. If the
 * worker fails, automatic checkpoints are turned back on.
 *
 * Returns undefined (nothing changed) for an in-memory database or when the
 * worker cannot start.
 */
export function startBackgroundCheckpoints(
  connection: BetterSqlite3.Database,
  path: string,
  options: BackgroundCheckpointOptions = {},
): BackgroundCheckpoints | undefined {
  if (path === ":memory:" || connection.memory) return undefined;
  let driver: string;
  try {
    driver = sqliteDriverEntry();
  } catch {
    return undefined;
  }
  const stopped = new SharedArrayBuffer(4);
  let worker: Worker;
  try {
    const pageSize = connection.pragma("page_size", { simple: true }) as number;
    worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        driver,
        path,
        intervalMs: options.intervalMs ?? defaultCheckpointIntervalMs,
        restartBytes: options.restartBytes ?? defaultRestartBytes,
        pageSize,
        busyTimeoutMs: 5000,
        stopped,
      },
    });
  } catch {
    return undefined;
  }
  connection.pragma("wal_autocheckpoint = 0");
  let failed = false;
  const fail = (error: Error) => {
    if (failed) return;
    failed = true;
    try {
      // SQLite's default: checkpoint in the COMMIT that crosses 1,000 pages.
      if (connection.open) connection.pragma("wal_autocheckpoint = 1000");
    } catch {
      // The connection is closing.
    }
    options.onError?.(error);
  };
  worker.on("message", (message: { error?: string }) => {
    if (message.error !== undefined) fail(new Error(`background WAL checkpoint failed: ${message.error}`));
  });
  worker.on("error", (error) => fail(error));
  worker.on("exit", (code) => {
    if (Atomics.load(new Int32Array(stopped), 0) === 0) fail(new Error(`the WAL checkpoint worker exited (${code})`));
  });
  worker.unref();
  return {
    stop() {
      const flag = new Int32Array(stopped);
      if (Atomics.load(flag, 0) === 1) return;
      worker.postMessage("stop");
      // Its connection closed before the serving one closes (the last connection checkpoints and removes the WAL).
      Atomics.wait(flag, 0, 0, 1000);
      failed = true;
    },
  };
}
