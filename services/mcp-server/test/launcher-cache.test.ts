import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { builtServer } from "./support/server-process.ts";

// The launcher's V8 code cache is only worth having if the next start takes it. V8 refuses a cache made
// under other flags, so a flag the server sets while it runs (the regexp fallback) must be in force before
// the launcher compiles, or every start recompiles and rewrites the cache.
// A copy of the built launcher and bundle in a folder of its own (inside the package, so the bundle's
// external dependencies still resolve), so no other test's server shares its cache file.

const run = promisify(execFile);
const folder = mkdtempSync(join(dirname(dirname(builtServer)), ".launcher-cache-test-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const cacheFile = () => readdirSync(folder).find((name) => name.endsWith(".cache"));

describe("the launcher's code cache", () => {
  it("is written by the first start and taken, not rewritten, by the next", async () => {
    for (const file of ["main.js", "server.cjs"]) copyFileSync(join(dirname(builtServer), file), join(folder, file));
    const start = () =>
      run(process.execPath, [join(folder, "main.js"), "--print-config", "claude-code"], {
        env: { PATH: process.env["PATH"] ?? "" },
      });
    await start();
    const written = cacheFile();
    expect(written).toBeDefined();
    const before = statSync(join(folder, written as string)).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { stdout } = await start();
    expect(stdout).toContain("claude mcp add");
    expect(cacheFile()).toBe(written);
    expect(statSync(join(folder, written as string)).mtimeMs).toBe(before);
  });
});
