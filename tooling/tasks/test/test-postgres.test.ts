import { connect } from "node:net";
import { testDialects } from "@deliberate/store/testing/dialects";
import { describe, expect, it } from "vitest";
import { withTestPostgres } from "../src/test-postgres.ts";

// The tests decide the dialects themselves: a caller's DELIBERATE_TEST_DATABASE_URL or DELIBERATE_TEST_DIALECTS is left out.
const { DELIBERATE_TEST_DATABASE_URL: _inherited, DELIBERATE_TEST_DIALECTS: _dialects, ...withoutServer } = process.env;

/** Whether something accepts TCP connections at the URL's host and port. */
function listens(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** A stand-in server that records what happened to it. */
function recordingStart() {
  const events: string[] = [];
  const start = async () => {
    events.push("started");
    return { adminUrl: "postgres://fake@127.0.0.1:1/postgres", stop: async () => void events.push("stopped") };
  };
  return { events, start };
}

describe("withTestPostgres", () => {
  // Starts a real server of its own (initdb: 2.5 s on a quiet machine, 24 s and more under a second full test run):
  // 120 s. Not in a run that leaves Postgres out.
  it.runIf(testDialects.includes("postgres"))(
    "runs with one embedded Postgres announced in the environment, and stops it afterwards",
    async () => {
      let url = "";
      const result = await withTestPostgres({ ...withoutServer, DELIBERATE_TEST_DIALECTS: "postgres" }, async (env) => {
        url = env["DELIBERATE_TEST_DATABASE_URL"] ?? "";
        expect(url).toMatch(/^postgres(ql)?:\/\//);
        expect(await listens(url)).toBe(true);
        return 3;
      });
      expect(result).toBe(3);
      expect(await listens(url)).toBe(false);
    },
    120_000,
  );

  it("stops the server when the run fails, and passes the failure on", async () => {
    const { events, start } = recordingStart();
    await expect(
      withTestPostgres(
        withoutServer,
        async () => {
          events.push("ran");
          throw new Error("task runner broke");
        },
        start,
      ),
    ).rejects.toThrow("task runner broke");
    expect(events).toEqual(["started", "ran", "stopped"]);
  });

  it("starts nothing when a server is given or Postgres is left out", async () => {
    const { events, start } = recordingStart();
    const given = "postgres://someone@127.0.0.1:1/postgres";
    expect(
      await withTestPostgres(
        { ...withoutServer, DELIBERATE_TEST_DATABASE_URL: given },
        async (env) => env["DELIBERATE_TEST_DATABASE_URL"],
        start,
      ),
    ).toBe(given);
    expect(
      await withTestPostgres(
        { ...withoutServer, DELIBERATE_TEST_DIALECTS: "sqlite" },
        async (env) => env["DELIBERATE_TEST_DATABASE_URL"],
        start,
      ),
    ).toBeUndefined();
    expect(events).toEqual([]);
  });

  it("refuses a dialect it does not know, naming the variable", async () => {
    const { events, start } = recordingStart();
    await expect(
      withTestPostgres({ ...withoutServer, DELIBERATE_TEST_DIALECTS: "oracle" }, async () => 0, start),
    ).rejects.toThrow("DELIBERATE_TEST_DIALECTS lists unknown dialects: oracle");
    expect(events).toEqual([]);
  });
});
