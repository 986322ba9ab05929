import { spawn } from "node:child_process";
import { once } from "node:events";
import { constants } from "node:os";
import { pathToFileURL } from "node:url";
import { selectedDialects } from "./dialects.ts";
import { startEmbeddedPostgres, type TestPostgres } from "./embedded-postgres.ts";

/**
 * Runs `command` with one embedded Postgres for all of it, announced to every
 * test run below it as `DELIBERATE_TEST_DATABASE_URL` (each package's global
 * setup then starts none; each test file still gets databases of its own). A
 * whole-workspace run would otherwise start a server per package, about a
 * CPU-second each. Nothing is started when that variable is already set or
 * `DELIBERATE_TEST_DIALECTS` leaves Postgres out. Resolves with the command's
 * exit code (128 + the signal's number when a signal ended it; 127 when it
 * could not be run, said on stderr) after the server has stopped.
 */
export async function runWithTestPostgres(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const external = env["DELIBERATE_TEST_DATABASE_URL"]?.trim();
  // Every package's suites at once share it: room for all their pools.
  const server: TestPostgres | undefined = external || !selectedDialects(env["DELIBERATE_TEST_DIALECTS"]).includes("postgres") ? undefined : await startEmbeddedPostgres({ maxConnections: 1000 });
  try {
    const child = spawn(command, args, { stdio: "inherit", env: server ? { ...env, DELIBERATE_TEST_DATABASE_URL: server.adminUrl } : env });
    // The terminal's Ctrl-C reaches the command too; a signal sent to this process alone is passed on.
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    for (const signal of signals) process.on(signal, forward);
    try {
      const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
      return code ?? 128 + (signal ? constants.signals[signal] : 0);
    } catch (error) {
      process.stderr.write(`with-test-postgres: could not run ${command}: ${(error as Error).message}\n`);
      return 127;
    } finally {
      for (const signal of signals) process.off(signal, forward);
    }
  } finally {
    await server?.stop();
  }
}

// `tsx with-test-postgres.ts <command> [args…]` (the root `pnpm test` and `pnpm test:postgres`).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [command, ...args] = process.argv.slice(2);
  if (command === undefined) {
    process.stderr.write("usage: with-test-postgres <command> [args…]\n");
    process.exit(2);
  }
  process.exit(await runWithTestPostgres(command, args));
}
