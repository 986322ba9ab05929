import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The command as started (dist/main.js, which runs the bundle with its code cache; links resolved), else this file. */
export function commandPath(): string {
  const started = process.argv[1];
  if (started === undefined) return fileURLToPath(import.meta.url);
  try {
    return realpathSync(started);
  } catch {
    return resolve(started);
  }
}
