import { EventEmitter } from "node:events";
import { ConfigError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { type MainProcess, runMain } from "./run-main.ts";

/** A process whose exit is recorded (and ends nothing): resolves `exited` with the first code. */
function recordingProcess() {
  const signals = new EventEmitter();
  const stderr: string[] = [];
  const codes: number[] = [];
  let settle: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => (settle = resolve));
  const process: MainProcess = {
    stderr: { write: (text: string) => stderr.push(text) },
    exit: ((code: number) => {
      codes.push(code);
      settle(code);
    }) as MainProcess["exit"],
    on: (signal, listener) => signals.on(signal, listener),
  };
  return { process, signals, stderr, codes, exited };
}

describe("runMain", () => {
  it("prints a ConfigError as `<name>: <message>` and exits 2", async () => {
    const run = recordingProcess();
    await runMain("svc", () => Promise.reject(new ConfigError("Invalid configuration: A is bad.", ["A"])), run.process);
    expect(run.codes).toEqual([2]);
    expect(run.stderr).toEqual(["svc: Invalid configuration: A is bad.\n"]);
  });

  it("prints any other failure to start as one JSON line and exits 1", async () => {
    const run = recordingProcess();
    await runMain("svc", () => Promise.reject(new Error("port in use")), run.process);
    expect(run.codes).toEqual([1]);
    expect(JSON.parse(run.stderr[0] ?? "")).toMatchObject({
      level: "error",
      message: "svc failed to start: port in use",
    });
  });

  it("stops a running service on SIGTERM (exit 0), and exits 130 on a second signal", async () => {
    const run = recordingProcess();
    let stops = 0;
    let finishStop: () => void = () => {};
    const stop = () => {
      stops++;
      return new Promise<void>((resolve) => (finishStop = resolve));
    };
    await runMain("svc", async () => ({ stop }), run.process);
    expect(run.codes).toEqual([]);
    run.signals.emit("SIGTERM");
    run.signals.emit("SIGINT");
    expect(run.codes).toEqual([130]);
    finishStop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(stops).toBe(1);
    expect(run.codes).toEqual([130, 0]);
  });

  it("exits 1 when stopping fails", async () => {
    const run = recordingProcess();
    await runMain("svc", async () => ({ stop: () => Promise.reject(new Error("flush failed")) }), run.process);
    run.signals.emit("SIGINT");
    expect(await run.exited).toBe(1);
    expect(run.stderr.join("")).toContain("svc failed to stop: flush failed");
  });

  it("leaves a start that returns nothing (help, version) to end by itself", async () => {
    const run = recordingProcess();
    await runMain("svc", async () => undefined, run.process);
    run.signals.emit("SIGTERM");
    expect(run.codes).toEqual([]);
  });
});
