import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DeliberateError, databaseRetryAfterSeconds, isTransientDatabaseFault, toDeliberateError } from "./index.ts";

/** An error shaped like the drivers': pg's DatabaseError carries the SQLSTATE in `code`, node's socket errors the errno name, better-sqlite3's the result code. */
function driverError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

const transientPostgres = [
  "57P01",
  "57P02",
  "57P03",
  "08000",
  "08003",
  "08006",
  "08001",
  "08004",
  "53300",
  "53100",
  "40001",
  "40P01",
];
const transientSockets = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "EAI_AGAIN"];
const transientSqlite = [
  "SQLITE_BUSY",
  "SQLITE_BUSY_SNAPSHOT",
  "SQLITE_BUSY_TIMEOUT",
  "SQLITE_LOCKED",
  "SQLITE_LOCKED_SHAREDCACHE",
  "SQLITE_IOERR",
  "SQLITE_IOERR_WRITE",
  "SQLITE_IOERR_FSYNC",
  "SQLITE_FULL",
  "SQLITE_PROTOCOL",
];
// Faults of the statement or the data: the same call fails the same way later.
const permanent = [
  "23505",
  "23503",
  "42P01",
  "42703",
  "22P02",
  "SQLITE_CONSTRAINT",
  "SQLITE_CONSTRAINT_UNIQUE",
  "SQLITE_ERROR",
  "SQLITE_CORRUPT",
  "SQLITE_READONLY",
  "SQLITE_MISMATCH",
  "ENOENT",
  "ERR_INVALID_ARG_TYPE",
];

describe("isTransientDatabaseFault", () => {
  it("knows the drivers' codes for an unreachable, restarting or busy database", () => {
    for (const code of [...transientPostgres, ...transientSockets, ...transientSqlite])
      expect(isTransientDatabaseFault(driverError("x", code)), code).toBe(true);
    for (const code of permanent) expect(isTransientDatabaseFault(driverError("x", code)), code).toBe(false);
  });

  it("knows pg's dropped-connection messages, which carry no code", () => {
    for (const message of [
      "Connection terminated unexpectedly",
      "Connection terminated",
      "Client has encountered a connection error and is not queryable",
      "timeout exceeded when trying to connect",
      "Connection terminated due to connection timeout",
    ]) {
      expect(isTransientDatabaseFault(new Error(message)), message).toBe(true);
    }
    expect(isTransientDatabaseFault(new Error('relation "x" does not exist'))).toBe(false);
    expect(isTransientDatabaseFault(new Error("Cannot use a pool after calling end on the pool"))).toBe(false);
  });

  it("finds the fault through cause chains and AggregateErrors, and takes a DeliberateError at its word", () => {
    const fault = driverError("terminating connection due to administrator command", "57P01");
    expect(
      isTransientDatabaseFault(new Error("commit failed", { cause: new Error("wrapped", { cause: fault }) })),
    ).toBe(true);
    expect(isTransientDatabaseFault(new AggregateError([new Error("a"), driverError("b", "ECONNREFUSED")]))).toBe(true);
    expect(isTransientDatabaseFault(new DeliberateError({ code: "STORAGE", message: "away", retryable: true }))).toBe(
      true,
    );
    // A DeliberateError that says otherwise wins over what it wraps.
    expect(isTransientDatabaseFault(new DeliberateError({ code: "INVALID_INPUT", message: "bad", cause: fault }))).toBe(
      false,
    );
    expect(
      isTransientDatabaseFault(new DeliberateError({ code: "STORAGE", message: "broken", retryable: false })),
    ).toBe(false);
  });

  it("never throws and ends on any value, cyclic causes included", () => {
    const cyclic = new Error("loop") as Error & { cause?: unknown };
    cyclic.cause = cyclic;
    expect(isTransientDatabaseFault(cyclic)).toBe(false);
    fc.assert(
      fc.property(fc.anything({ withObjectString: true, withNullPrototype: true }), (value) => {
        expect(typeof isTransientDatabaseFault(value)).toBe("boolean");
      }),
    );
  });

  it("classifies by the code alone, whatever the message says", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.constantFrom(...transientPostgres, ...transientSockets, ...transientSqlite),
        (message, code) => {
          expect(isTransientDatabaseFault(driverError(message, code))).toBe(true);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.string().filter((message) => !/connection|timeout|queryable/i.test(message)),
        fc.constantFrom(...permanent),
        (message, code) => {
          expect(isTransientDatabaseFault(driverError(message, code))).toBe(false);
        },
      ),
    );
  });
});

describe("toDeliberateError on a database fault", () => {
  it("is STORAGE, retryable, with a hint to retry later and the fault kept only as the cause", () => {
    const fault = driverError("terminating connection due to administrator command", "57P01");
    const converted = toDeliberateError(fault);
    expect(converted).toMatchObject({ code: "STORAGE", retryable: true });
    expect(converted.hint).toContain(`${databaseRetryAfterSeconds} seconds`);
    expect(converted.message).not.toContain("administrator");
    expect(converted.cause).toBe(fault);
    expect(toDeliberateError(driverError("duplicate key", "23505"))).toMatchObject({
      code: "INTERNAL",
      retryable: false,
    });
  });
});
