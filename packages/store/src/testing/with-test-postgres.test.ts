import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const runner = fileURLToPath(new URL("./with-test-postgres.ts", import.meta.url));

/** Runs the runner with `args`; resolves with its exit code and output (never throws on a non-zero exit). */
async function runWithPostgres(args: string[], env: Record<string, string | undefined>): Promise<{ code: number; stdout: string; stderr: string }> {
  const environment = { ...process.env, ...env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete environment[name];
  try {
    const { stdout, stderr } = await run(process.execPath, [tsx, runner, ...args], { env: environment });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// The child asks the announced server for its version, prints the URL, and exits 3.
const child = `
const pg = require(${JSON.stringify(createRequire(import.meta.url).resolve("pg"))});
const client = new pg.Client({ connectionString: process.env.DELIBERATE_TEST_DATABASE_URL });
client.connect().then(() => client.query("show server_version")).then(async (result) => {
  console.log(JSON.stringify({ url: process.env.DELIBERATE_TEST_DATABASE_URL, version: result.rows[0].server_version }));
  await client.end();
  process.exit(3);
});`;

describe("with-test-postgres", () => {
  it("runs the command with one Postgres announced to it, passes its exit code on, and stops the server", async () => {
    const result = await runWithPostgres([process.execPath, "-e", child], { DELIBERATE_TEST_DATABASE_URL: undefined, DELIBERATE_TEST_DIALECTS: undefined });
    expect(result.code, result.stderr).toBe(3);
    const { url, version } = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as { url: string; version: string };
    expect(version).toMatch(/^17\./);
    // Gone afterwards: nothing listens there any more.
    const pg = (await import("pg")).default;
    const late = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    await expect(late.connect()).rejects.toThrow();
  });

  it("starts nothing when a server is given or Postgres is left out, and passes the variable through", async () => {
    const given = "postgres://someone@127.0.0.1:1/postgres";
    const echo = [process.execPath, "-e", "console.log(process.env.DELIBERATE_TEST_DATABASE_URL ?? 'unset')"];
    expect((await runWithPostgres(echo, { DELIBERATE_TEST_DATABASE_URL: given })).stdout.trim()).toBe(given);
    expect((await runWithPostgres(echo, { DELIBERATE_TEST_DATABASE_URL: undefined, DELIBERATE_TEST_DIALECTS: "sqlite" })).stdout.trim()).toBe("unset");
  });

  it("says how to use it without a command, and names a command it cannot run", async () => {
    const env = { DELIBERATE_TEST_DIALECTS: "sqlite" };
    const usage = await runWithPostgres([], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("usage: with-test-postgres <command>");
    const missing = await runWithPostgres(["no-such-command-deliberate"], env);
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain("could not run no-such-command-deliberate");
  });
});
