import { spawn } from "node:child_process";
import { once } from "node:events";
import { constants } from "node:os";
import { testDialects } from "./dialects.ts";
import { startTestPostgres, type TestPostgres } from "./embedded-postgres.ts";

/**
 * `tsx with-test-postgres.ts <command> [args…]`: runs the command with one
 * embedded Postgres for all of it, announced to every test run below it as
 * `DELIBERATE_TEST_DATABASE_URL` (each package's global setup then starts
 * none; each test file still gets databases of its own). A whole-workspace
 * run would otherwise start a server per package, about a CPU-second each.
 * Nothing is started when that variable is already set or
 * `DELIBERATE_TEST_DIALECTS` leaves Postgres out. Exits with the command's code.
 */
const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write("usage: with-test-postgres <command> [args…]\n");
  process.exit(2);
}

const external = process.env["DELIBERATE_TEST_DATABASE_URL"]?.trim();
// Every package's suites at once share it: room for all their pools.
const server: TestPostgres | undefined = external || !testDialects.includes("postgres") ? undefined : await startTestPostgres({ maxConnections: 1000 });
const child = spawn(command, args, { stdio: "inherit", env: server ? { ...process.env, DELIBERATE_TEST_DATABASE_URL: server.adminUrl } : process.env });
// The terminal's Ctrl-C reaches the command too; a signal sent to this process alone is passed on.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
let exitCode: number;
try {
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
} catch (error) {
  process.stderr.write(`with-test-postgres: could not run ${command}: ${(error as Error).message}\n`);
  exitCode = 127;
}
await server?.stop();
process.exit(exitCode);
