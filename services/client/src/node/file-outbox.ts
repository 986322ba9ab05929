import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { OutboxEntry, OutboxStore } from "../agent-intent/outbox.ts";
import { DeliberateClientError } from "../errors.ts";

export interface FileOutboxOptions {
  /** The folder the outbox keeps its entries in (created if missing), one JSON file per entry. */
  directory: string;
  /** Temporary files older than this are left-overs of a crash mid-write, removed when listing. Default 60,000 ms. */
  staleTemporaryMs?: number;
}

/** The file of an entry: a hash of its id (any correlation id, a safe and short file name). */
function fileName(id: string): string {
  return `${createHash("sha256").update(id).digest("hex")}.json`;
}

/** Makes a rename or unlink in `directory` durable (a no-op where directories cannot be synced). */
async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, "r");
    await handle.sync();
  } catch {
    // Some platforms (Windows) cannot open or sync a directory; the rename itself is still atomic.
  } finally {
    await handle?.close().catch(() => {});
  }
}

function parseEntry(text: string, file: string): OutboxEntry {
  const entry = JSON.parse(text) as OutboxEntry;
  if (typeof entry?.id !== "string" || entry.kind !== "agent_intent_async" || typeof entry.request !== "object") {
    throw new Error(`${file} is not an outbox entry`);
  }
  return entry;
}

/**
 * An outbox on disk (the queue fallback of the agent-intent client): one JSON file per entry. Each write goes to a
 * temporary file that is synced, then renamed over the entry's file and the folder synced, so a crash or a restart
 * leaves the old version or the new one, never half of one, and an entry written is not lost. Several processes may
 * share the folder (the service's correlation-id idempotency makes a double send one job).
 */
export function createFileOutbox(options: FileOutboxOptions): OutboxStore & { readonly directory: string } {
  const { directory } = options;
  const staleMs = options.staleTemporaryMs ?? 60_000;
  let ready: Promise<unknown> | undefined;
  const prepared = () => (ready ??= mkdir(directory, { recursive: true }));

  async function read(file: string): Promise<OutboxEntry | undefined> {
    let text: string;
    try {
      text = await readFile(join(directory, file), "utf8");
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return undefined;
      throw error;
    }
    return parseEntry(text, join(directory, file));
  }

  return {
    directory,
    async put(entry) {
      await prepared();
      const target = join(directory, fileName(entry.id));
      const temporary = `${target}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
      const handle = await open(temporary, "wx");
      try {
        await handle.writeFile(JSON.stringify(entry), "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        await rename(temporary, target);
      } catch (error) {
        await unlink(temporary).catch(() => {});
        throw new DeliberateClientError({
          code: "INTERNAL",
          message: `The outbox could not store ${entry.id} in ${directory}: ${error instanceof Error ? error.message : String(error)}`,
          cause: error,
        });
      }
      await syncDirectory(directory);
    },
    async get(id) {
      await prepared();
      return read(fileName(id));
    },
    async list() {
      await prepared();
      const entries: OutboxEntry[] = [];
      for (const file of await readdir(directory)) {
        if (file.endsWith(".tmp")) {
          // A write that never reached its rename (the process died): the entry's previous version, if any, stands.
          const path = join(directory, file);
          const info = await stat(path).catch(() => undefined);
          if (info && Date.now() - info.mtimeMs >= staleMs) await rm(path, { force: true });
          continue;
        }
        if (!file.endsWith(".json")) continue;
        try {
          const entry = await read(file);
          if (entry) entries.push(entry);
        } catch {
          // Not an entry (another program's file, a disk error): set aside as `.corrupt`, kept for a person to
          // look at, so it neither blocks the others nor gets sent.
          await rename(join(directory, file), join(directory, `${file}.corrupt`)).catch(() => {});
        }
      }
      return entries.sort((a, b) => a.queuedAt.localeCompare(b.queuedAt) || a.id.localeCompare(b.id));
    },
    async delete(id) {
      await prepared();
      await rm(join(directory, fileName(id)), { force: true });
      await syncDirectory(directory);
    },
  };
}
