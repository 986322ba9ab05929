import fc from "fast-check";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { rebuildInvocationRollups } from "./index.ts";
import type { NewInvocation } from "./repositories/invocation.repository.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

let sequence = 0;
function invocation(fields: Partial<NewInvocation> = {}): NewInvocation {
  sequence += 1;
  return {
    id: `inv_${String(sequence).padStart(8, "0")}`,
    tool: "reasoning_linear",
    operation: null,
    session_id: "s1",
    provider: "anthropic",
    model: "m",
    input_tokens: 10,
    output_tokens: 5,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    model_calls: 1,
    latency_ms: 12.5,
    success: true,
    error_code: null,
    error_message: null,
    quality: null,
    created_at: "2026-11-22T10:00:00.000Z",
    ...fields,
  };
}

const rowArbitrary = fc.record({
  tool: fc.constantFrom("reasoning_linear", "reasoning_tree", "agent_intent_decide"),
  operation: fc.constantFrom(null, "create", "list"),
  provider: fc.constantFrom(null, "anthropic", "host"),
  success: fc.boolean(),
  error_code: fc.constantFrom(null, "PROVIDER_TIMEOUT"),
  latency_ms: fc.oneof(fc.constantFrom(0, 1, 1.5, 100, 100.25), fc.double({ min: 0, max: 120_000, noNaN: true })),
  model_calls: fc.nat(5),
  input_tokens: fc.nat(5000),
  output_tokens: fc.nat(5000),
});

/** Sorted so two aggregations compare regardless of row order. */
function sorted<T>(rows: T[]): T[] {
  return [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** Nearest rank: the value at 1-based rank max(1, ceil(p * n / 100)) of the sorted values. */
function nearestRank(values: number[], rank: number): number | null {
  const ordered = [...values].sort((a, b) => a - b);
  return ordered[rank - 1] ?? null;
}

describe.each(testDialects)("invocation rollups and latency ranks on %s", (dialect) => {
  const memoryStore = useTestStores(dialect);
  // Each run opens a store (a schema on Postgres): fewer runs there.
  const numRuns = dialect === "sqlite" ? 25 : 6;

  it("aggregate from the rollups equals the aggregate of the rows, however they were written", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArbitrary, { minLength: 1, maxLength: 40 }), fc.nat(40), async (rows, split) => {
        const store = await memoryStore();
        const inputs = rows.map((row) => invocation(row));
        // Some one by one, the rest in one batch.
        for (const input of inputs.slice(0, split)) await store.invocations.record(input);
        await store.invocations.recordMany(inputs.slice(split));
        const fromRollups = await store.invocations.aggregate();
        // A time filter reads the rows themselves.
        const fromRows = await store.invocations.aggregate({ since: "2000-01-01T00:00:00.000Z" });
        const rounded = (list: typeof fromRows) =>
          sorted(list.map((row) => ({ ...row, latency_ms_total: Math.round(row.latency_ms_total * 1000) / 1000 })));
        expect(rounded(fromRollups)).toEqual(rounded(fromRows));
        expect(fromRollups.reduce((total, row) => total + row.calls, 0)).toBe(rows.length);
      }),
      { numRuns },
    );
  });

  it("a batch's rollups and histogram (summed per group and bucket first) equal those of its rows written one by one", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArbitrary, { minLength: 1, maxLength: 40 }), async (rows) => {
        const oneByOne = await memoryStore();
        const batched = await memoryStore();
        const inputs = rows.map((row) => invocation(row));
        for (const input of inputs) await oneByOne.invocations.record(input);
        await batched.invocations.recordMany(inputs);
        // Sums of doubles added in another order may differ in the last bits.
        const rounded = (list: Awaited<ReturnType<typeof oneByOne.invocations.aggregate>>) =>
          sorted(list.map((row) => ({ ...row, latency_ms_total: Math.round(row.latency_ms_total * 1e6) / 1e6 })));
        expect(rounded(await batched.invocations.aggregate())).toEqual(rounded(await oneByOne.invocations.aggregate()));
        const histogram = async (store: typeof oneByOne) =>
          sorted(
            (
              await sql<
                Record<string, unknown>
              >`select tool, operation, bucket, calls, min_latency_ms from invocation_latency_buckets`.execute(store.db)
            ).rows.map((row) => ({
              ...row,
              bucket: Number(row["bucket"]),
              calls: Number(row["calls"]),
              min_latency_ms: Number(row["min_latency_ms"]),
            })),
          );
        expect(await histogram(batched)).toEqual(await histogram(oneByOne));
        for (const tool of new Set(inputs.map((input) => input.tool))) {
          const calls = inputs.filter((input) => input.tool === tool).length;
          const ranks = [1, Math.ceil(calls / 2), calls];
          expect(await batched.invocations.latencyAtRanks({ tool }, ranks)).toEqual(
            await oneByOne.invocations.latencyAtRanks({ tool }, ranks),
          );
        }
      }),
      { numRuns },
    );
  });

  it("latencyAtRanks gives the latency at each rank, per tool and per operation, with and without filters", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArbitrary, { minLength: 1, maxLength: 60 }), async (rows) => {
        const store = await memoryStore();
        const inputs = rows.map((row) => invocation(row));
        await store.invocations.recordMany(inputs);
        for (const tool of new Set(inputs.map((input) => input.tool))) {
          const latencies = inputs.filter((input) => input.tool === tool).map((input) => input.latency_ms);
          const ranks = [1, Math.ceil(latencies.length / 2), latencies.length, latencies.length + 1];
          const expected = ranks.map((rank) => nearestRank(latencies, rank));
          expect(await store.invocations.latencyAtRanks({ tool }, ranks)).toEqual(expected);
          expect(await store.invocations.latencyAtRanks({ tool, since: "2000-01-01T00:00:00.000Z" }, ranks)).toEqual(
            expected,
          );
          for (const operation of [null, "create", "list"]) {
            const ofOperation = inputs
              .filter((input) => input.tool === tool && input.operation === operation)
              .map((input) => input.latency_ms);
            const operationRanks = [1, Math.max(1, Math.ceil((95 * ofOperation.length) / 100)), ofOperation.length];
            expect(await store.invocations.latencyAtRanks({ tool, operation }, operationRanks)).toEqual(
              operationRanks.map((rank) => nearestRank(ofOperation, rank)),
            );
          }
        }
      }),
      { numRuns },
    );
  });

  it("rebuilds the rollups and histogram of rows written without them", async () => {
    const store = await memoryStore();
    await store.invocations.recordMany([
      invocation({ latency_ms: 5 }),
      invocation({ latency_ms: 50, success: false, error_code: "PROVIDER_TIMEOUT" }),
      invocation({ tool: "reasoning_tree", latency_ms: 7 }),
    ]);
    const before = sorted(await store.invocations.aggregate());
    // Rows written around the repository (an import): the rollups do not know them until rebuilt.
    await sql`insert into invocations (id, tool, operation, session_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, model_calls, latency_ms, success, error_code, error_message, quality, created_at)
      values ('inv_imported', 'reasoning_tree', null, null, null, null, 0, 0, 0, 0, 0, 3, ${dialect === "sqlite" ? sql`1` : sql`true`}, null, null, null, '2026-11-22T10:00:00.000Z')`.execute(
      store.db,
    );
    expect(sorted(await store.invocations.aggregate())).toEqual(before);
    await rebuildInvocationRollups(store.db);
    const rebuilt = await store.invocations.aggregate();
    expect(sorted(rebuilt)).toEqual(sorted(await store.invocations.aggregate({ since: "2000-01-01T00:00:00.000Z" })));
    expect(await store.invocations.latencyAtRanks({ tool: "reasoning_tree" }, [1, 2])).toEqual([3, 7]);
  });
});
