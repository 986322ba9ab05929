import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { survivingDatabaseFaults } from "./index.ts";

/** A stand-in for `process`: its events, and the exit code asked for. */
function fakeProcess() {
  const emitter = new EventEmitter() as EventEmitter & { exitCode?: number; exit(code: number): void };
  emitter.exit = (code: number) => {
    emitter.exitCode = code;
  };
  return emitter;
}

describe("survivingDatabaseFaults", () => {
  it("logs a database fault nobody handled and keeps the process; ends it for anything else", () => {
    const target = fakeProcess();
    const reports: Array<[string, string]> = [];
    const stop = survivingDatabaseFaults(target as unknown as NodeJS.Process, (level, message) =>
      reports.push([level, message]),
    );
    target.emit(
      "uncaughtException",
      Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
    );
    target.emit("unhandledRejection", new Error("Connection terminated unexpectedly"));
    expect(target.exitCode).toBeUndefined();
    expect(reports.map(([level]) => level)).toEqual(["warn", "warn"]);
    target.emit("unhandledRejection", new TypeError("x is not a function"));
    expect(target.exitCode).toBe(1);
    expect(reports.at(-1)?.[0]).toBe("error");
    stop();
    expect(target.listenerCount("uncaughtException") + target.listenerCount("unhandledRejection")).toBe(0);
  });
});
