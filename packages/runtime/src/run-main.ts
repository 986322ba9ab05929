import { ConfigError } from "@deliberate/base";

/** What a service's start returns: how to stop it (called once, on SIGINT or SIGTERM). */
export interface RunningService {
  stop(signal: "SIGINT" | "SIGTERM"): Promise<void>;
  /** How long `stop` may take before the process exits anyway (default 5 s). */
  readonly stopGraceMs?: number;
}

/** The process `runMain` drives (the real one in production). */
export interface MainProcess {
  readonly stderr: { write(text: string): unknown };
  exit(code: number): never;
  on(signal: "SIGINT" | "SIGTERM", listener: () => void): unknown;
}

/**
 * Runs a service's start with the exit codes both services share: a `ConfigError` prints
 * `<name>: <message>` and exits 2; any other failure to start prints one JSON log line and exits 1. When
 * `start` returns a running service, SIGINT/SIGTERM stop it (exit 0, or 1 when stopping fails or outlasts
 * its grace); a second signal exits 130 at once. A start that returns nothing ran to completion (help,
 * version, --print-config) and the process ends when its work does.
 */
export function runMain(
  name: string,
  start: () => Promise<RunningService | undefined>,
  process: MainProcess = globalThis.process,
): Promise<void> {
  return start().then(
    (running) => {
      if (running !== undefined) stopOnSignals(name, running, process);
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        process.stderr.write(`${name}: ${error.message}\n`);
        return void process.exit(2);
      }
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(
        `${JSON.stringify({ time: new Date().toISOString(), level: "error", message: `${name} failed to start: ${message}` })}\n`,
      );
      process.exit(1);
    },
  );
}

function stopOnSignals(name: string, running: RunningService, process: MainProcess): void {
  let stopping = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      if (stopping) return void process.exit(130);
      stopping = true;
      setTimeout(() => process.exit(1), running.stopGraceMs ?? 5000).unref();
      running.stop(signal).then(
        () => process.exit(0),
        (error: unknown) => {
          const message = error instanceof Error ? error.message : String(error);
          process.stderr.write(
            `${JSON.stringify({ time: new Date().toISOString(), level: "error", message: `${name} failed to stop: ${message}` })}\n`,
          );
          process.exit(1);
        },
      );
    });
  }
}
