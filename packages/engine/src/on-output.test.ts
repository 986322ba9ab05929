import { DeliberateError, defineTool } from "@deliberate/contracts";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { InvocationEvent } from "./engine-types.ts";
import { createEngine, defineModule, handlerDefinerFor, hostModelRouter } from "./index.ts";
import { probeAnnotations } from "./test-probe-annotations.ts";

// `InvokeOptions.onOutput`: a transport answers from the committed output before the engine records the
// invocation row and tells observers (the stdio fast path does); `invoke` itself still settles after them.

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const probeTool = defineTool({
  name: "output_probe",
  description: "Echoes its text, or fails as asked.",
  inputSchema: z.object({ text: z.string(), fail: z.enum(["no", "throw", "report"]).default("no") }),
  outputSchema: z.object({ text: z.string() }),
  annotations: probeAnnotations("Probe"),
  operations: [],
  usesModel: false,
});

const defineHandler = handlerDefinerFor();
const probeModule = defineModule({
  name: "output-probe",
  tools: [
    defineHandler(probeTool, async (input, context) => {
      if (input.fail === "throw") throw new DeliberateError({ code: "CONFLICT", message: "Refused." });
      if (input.fail === "report") context.reportFailure({ code: "INTERNAL", message: "partly failed" });
      // An extra key: the output handed over is the checked one (the schema strips it), as `invoke` returns.
      return { text: input.text, extra: true } as { text: string };
    }),
  ],
});

async function probeEngine() {
  const store = await openStore({ path: ":memory:", modules: [probeModule] });
  stores.push(store);
  const events: InvocationEvent[] = [];
  const engine = createEngine({
    store,
    modules: [probeModule],
    models: hostModelRouter,
    onInvocation: (event) => events.push(event),
  });
  return { store, engine, events };
}

describe("onOutput", () => {
  it("gets the checked output once, before observers are told; invoke resolves with it after them", async () => {
    const { store, engine, events } = await probeEngine();
    const handed: Array<{ output: Record<string, unknown>; eventsThen: number }> = [];
    const output = await engine.invoke(
      "output_probe",
      { text: "hi" },
      { onOutput: (given) => handed.push({ output: given, eventsThen: events.length }) },
    );
    expect(handed).toEqual([{ output: { text: "hi" }, eventsThen: 0 }]);
    expect(handed[0]?.output).toBe(output);
    expect(events).toMatchObject([{ tool: "output_probe", success: true }]);
    expect(await store.invocations.list({ tool: "output_probe" })).toMatchObject([{ success: true }]);
  });

  it("is not called when the call fails or its input is refused; a reported failure still has an output", async () => {
    const { store, engine, events } = await probeEngine();
    const handed: unknown[] = [];
    const onOutput = (given: Record<string, unknown>) => handed.push(given);
    await expect(engine.invoke("output_probe", { text: "x", fail: "throw" }, { onOutput })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await expect(engine.invoke("output_probe", { text: 3 }, { onOutput })).rejects.toMatchObject({
      code: "INVALID_INPUT",
    });
    expect(handed).toEqual([]);
    await engine.invoke("output_probe", { text: "y", fail: "report" }, { onOutput });
    expect(handed).toEqual([{ text: "y" }]);
    expect(events.map((event) => event.errorCode)).toEqual(["CONFLICT", "INTERNAL"]);
    // A CONFLICT is the caller's mistake: told to observers, but no row (as without onOutput).
    expect(await store.invocations.list({ tool: "output_probe" })).toMatchObject([{ error_code: "INTERNAL" }]);
  });

  it("a listener that throws does not fail the call or lose its row", async () => {
    const { store, engine, events } = await probeEngine();
    const output = await engine.invoke(
      "output_probe",
      { text: "on" },
      {
        onOutput: () => {
          throw new Error("the transport broke");
        },
      },
    );
    expect(output).toEqual({ text: "on" });
    expect(events).toMatchObject([{ success: true }]);
    expect(await store.invocations.list({ tool: "output_probe" })).toMatchObject([{ success: true }]);
  });
});
