import { DeliberateError, defineTool } from "@deliberate/contracts";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { InvocationEvent } from "./engine-types.ts";
import { createEngine, defineModule, handlerDefinerFor, hostModelRouter } from "./index.ts";
import { probeAnnotations } from "./test-probe-annotations.ts";

// How a call ends (`finishInvocation`): its row is recorded, then observers are told, then `invoke` settles;
// a caller's mistake records no row. Chained on the store's own promise, without async layers of its own.

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const finishTool = defineTool({
  name: "finish_probe",
  description: "Echoes its text, or refuses it.",
  inputSchema: z.object({ text: z.string(), refuse: z.boolean().default(false) }),
  outputSchema: z.object({ text: z.string() }),
  annotations: probeAnnotations("Probe"),
  operations: [],
  usesModel: false,
});

const defineHandler = handlerDefinerFor();
const finishModule = defineModule({
  name: "finish-probe",
  tools: [
    defineHandler(finishTool, async (input) => {
      if (input.refuse) throw new DeliberateError({ code: "CONFLICT", message: "Refused." });
      return { text: input.text };
    }),
  ],
});

/** An engine whose store records invocation rows only when the test says so. */
async function gatedEngine(options: { invocationBatch?: boolean } = {}) {
  const store = await openStore({
    path: ":memory:",
    modules: [finishModule],
    ...(options.invocationBatch ? { invocationBatch: { maxRows: 8, maxDelayMs: 60_000 } } : {}),
  });
  stores.push(store);
  const steps: string[] = [];
  const gates: Array<() => void> = [];
  let failure: Error | undefined;
  const record = store.invocations.record.bind(store.invocations);
  store.invocations.record = (row) => {
    steps.push(`record ${row.tool}`);
    if (failure !== undefined) return Promise.reject(failure);
    return new Promise<void>((resolve) => gates.push(resolve)).then(() => record(row));
  };
  const events: InvocationEvent[] = [];
  const engine = createEngine({
    store,
    modules: [finishModule],
    models: hostModelRouter,
    onInvocation: (event) => {
      steps.push(`observer ${event.id === null ? "without row" : "with row"}`);
      events.push(event);
    },
  });
  const openGates = () => {
    for (const open of gates.splice(0)) open();
  };
  return { store, engine, steps, events, openGates, failRecording: (error: Error) => (failure = error) };
}

describe("how a call finishes", () => {
  it("records the row, then tells the observers, then settles invoke, in that order", async () => {
    const { store, engine, steps, events, openGates } = await gatedEngine();
    let settled = false;
    const call = engine.invoke("finish_probe", { text: "hi" }).then((output) => {
      steps.push("invoke settled");
      settled = true;
      return output;
    });
    while (!steps.includes("record finish_probe")) await new Promise((resolve) => setImmediate(resolve));
    // The row is being recorded: nobody has been told, and the caller still waits.
    expect(steps).toEqual(["record finish_probe"]);
    expect(settled).toBe(false);
    openGates();
    expect(await call).toEqual({ text: "hi" });
    expect(steps).toEqual(["record finish_probe", "observer with row", "invoke settled"]);
    const rows = await store.invocations.list({ tool: "finish_probe" });
    expect(rows).toMatchObject([{ success: true }]);
    expect(events[0]?.id).toBe(rows[0]?.id);
  });

  it("records no row for a caller's mistake, and tells the observers before invoke rejects", async () => {
    const { store, engine, steps } = await gatedEngine();
    await expect(engine.invoke("finish_probe", { text: "no", refuse: true })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    expect(steps).toEqual(["observer without row"]);
    expect(await store.invocations.list({ tool: "finish_probe" })).toEqual([]);
  });

  it("fails the call when its row cannot be recorded (nothing acknowledged that is not recorded)", async () => {
    const { engine, steps, events, failRecording } = await gatedEngine();
    failRecording(new Error("the disk is full"));
    await expect(engine.invoke("finish_probe", { text: "lost" })).rejects.toThrow("the disk is full");
    // Its success row was refused, then the row of its failure: no observer was told of an outcome never recorded.
    expect(steps).toEqual(["record finish_probe", "record finish_probe"]);
    expect(events).toEqual([]);
  });
});
