import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { testDialects } from "./dialects.ts";
import { runWithTestPostgres } from "./with-test-postgres.ts";

const node = process.execPath;
const { DELIBERATE_TEST_DATABASE_URL: _inherited, ...withoutServer } = process.env;

// The child asks the announced server for its version, writes the URL to a file, and exits 3.
const askServer = (file: string) => `
const pg = require(${JSON.stringify(createRequire(import.meta.url).resolve("pg"))});
const client = new pg.Client({ connectionString: process.env.DELIBERATE_TEST_DATABASE_URL });
client.connect().then(() => client.query("show server_version")).then(async (result) => {
  require("node:fs").writeFileSync(${JSON.stringify(file)}, JSON.stringify({ url: process.env.DELIBERATE_TEST_DATABASE_URL, version: result.rows[0].server_version }));
  await client.end();
  process.exit(3);
});`;

async function refusesConnections(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.end();
    return false;
  } catch {
    return true;
  }
}

describe("runWithTestPostgres", () => {
  // Starts a server of its own (initdb: 2.5 s on a quiet machine, 24 s and more under a second full test run):
  // 120 s. Not in a run that leaves Postgres out.
  it.runIf(testDialects.includes("postgres"))("runs the command with one Postgres announced to it, passes its exit code on, and stops the server", async () => {
    const directory = mkdtempSync(join(tmpdir(), "with-test-postgres-"));
    try {
      const file = join(directory, "seen.json");
      expect(await runWithTestPostgres(node, ["-e", askServer(file)], { ...withoutServer, DELIBERATE_TEST_DIALECTS: "postgres" })).toBe(3);
      const { url, version } = JSON.parse(readFileSync(file, "utf8")) as { url: string; version: string };
      expect(version).toMatch(/^17\./);
      // Gone afterwards: nothing listens there any more.
      expect(await refusesConnections(url)).toBe(true);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }, 120_000);

  it("starts nothing when a server is given, and ends with the command's signal as 128 + its number", async () => {
    const given = "postgres://someone@127.0.0.1:1/postgres";
    const check = `if (process.env.DELIBERATE_TEST_DATABASE_URL !== ${JSON.stringify(given)}) process.exit(1); process.kill(process.pid, "SIGTERM");`;
    expect(await runWithTestPostgres(node, ["-e", check], { ...withoutServer, DELIBERATE_TEST_DATABASE_URL: given })).toBe(128 + 15);
  });

  it("starts nothing when Postgres is left out", async () => {
    const check = "process.exit(process.env.DELIBERATE_TEST_DATABASE_URL === undefined ? 0 : 1)";
    expect(await runWithTestPostgres(node, ["-e", check], { ...withoutServer, DELIBERATE_TEST_DIALECTS: "sqlite" })).toBe(0);
  });

  it("names a command it cannot run, exiting 127", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(await runWithTestPostgres("no-such-command-deliberate", [], { ...withoutServer, DELIBERATE_TEST_DATABASE_URL: "postgres://unused@127.0.0.1:1/postgres" })).toBe(127);
      expect(stderr.mock.calls.map(([text]) => String(text)).join("")).toContain("could not run no-such-command-deliberate");
    } finally {
      stderr.mockRestore();
    }
  });

  it("as a command, says how to use it when given none", async () => {
    const tsx = createRequire(import.meta.url).resolve("tsx/cli");
    const script = fileURLToPath(new URL("./with-test-postgres.ts", import.meta.url));
    const failure = await promisify(execFile)(node, [tsx, script]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toContain("usage: with-test-postgres <command>");
  });
});
