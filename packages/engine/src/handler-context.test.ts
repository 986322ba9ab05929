import { defineTool } from "@deliberate/contracts";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { InvocationEvent, ProgressUpdate } from "./engine-types.ts";
import { createEngine, defineModule, handlerDefinerFor, hostModelRouter } from "./index.ts";

// The handler context makes its progress channel, `callTool` and `reportFailure` (and the call's usage)
// when first read: these check that what a handler reads, detached or not, behaves as before.

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const annotations = {
  title: "Probe",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

const detachedProbe = defineTool({
  name: "detached_probe",
  description: "Uses the context's functions detached: progress, reportFailure, callTool.",
  inputSchema: z.object({ fail: z.boolean().default(false) }),
  outputSchema: z.object({ echoed: z.string(), sameFunctions: z.boolean(), ids: z.array(z.string()) }),
  annotations,
  operations: [],
  usesModel: false,
});

const echoTool = defineTool({
  name: "echo_probe",
  description: "Echoes its text and reports progress of its own.",
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ text: z.string() }),
  annotations,
  operations: [],
  usesModel: false,
});

const defineHandler = handlerDefinerFor();
const probeModule = defineModule({
  name: "context-probe",
  tools: [
    defineHandler(detachedProbe, async (input, context) => {
      const { progress, reportFailure, callTool, ids } = context;
      progress({ progress: 1, total: 2, message: "first" });
      const nested = await callTool("echo_probe", { text: "hello" });
      const routed: ProgressUpdate[] = [];
      await callTool("echo_probe", { text: "routed" }, { progress: (update) => routed.push(update) });
      progress({ progress: 2, total: 2, message: `routed ${routed.length}` });
      if (input.fail) reportFailure({ code: "INTERNAL", message: "step two failed" });
      return {
        echoed: nested["text"] as string,
        // Read twice, a function is the same one (a handler may compare or unsubscribe by it).
        sameFunctions: context.progress === progress && context.callTool === callTool,
        ids: [ids.next("x"), ids.next("x")],
      };
    }),
    defineHandler(echoTool, async (input, context) => {
      context.progress({ progress: 1, message: `echo ${input.text}` });
      return { text: input.text };
    }),
  ],
});

async function engineWith(models: Parameters<typeof createEngine>[0]["models"]) {
  const store = await openStore({ path: ":memory:", modules: [probeModule] });
  stores.push(store);
  const events: InvocationEvent[] = [];
  const engine = createEngine({ store, modules: [probeModule], models, onInvocation: (event) => events.push(event) });
  return { store, engine, events };
}

describe("the handler context", () => {
  it("hands out progress, callTool and reportFailure that work detached, and the same function on every read", async () => {
    const { store, engine, events } = await engineWith(createModelRouterFromModel(createScriptedModel([])));
    const updates: ProgressUpdate[] = [];
    const output = await engine.invoke(
      "detached_probe",
      { fail: true },
      { progress: (update) => updates.push(update) },
    );
    expect(output).toMatchObject({ echoed: "hello", sameFunctions: true });
    // The nested call without options reports to the caller's progress; with its own target, there only.
    expect(updates.map((update) => update.message)).toEqual(["first", "echo hello", "routed 1"]);
    const [row] = await store.invocations.list({ tool: "detached_probe" });
    expect(row).toMatchObject({ success: false, error_code: "INTERNAL", error_message: "step two failed" });
    expect(row).toMatchObject({ model_calls: 0, input_tokens: 0, provider: null, model: null });
    expect(events).toMatchObject([{ tool: "detached_probe", success: false, errorCode: "INTERNAL", modes: [] }]);
  });

  it("host-executed, a model-free call draws replay ids (distinct, stable in form) and records zero usage", async () => {
    const { store, engine } = await engineWith(hostModelRouter);
    const first = await engine.invoke("detached_probe", {});
    const second = await engine.invoke("detached_probe", {});
    const ids = [...(first["ids"] as string[]), ...(second["ids"] as string[])];
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^x_[0-9a-z]{8}[0-9a-f]{12}$/);
    const rows = await store.invocations.list({ tool: "detached_probe" });
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatchObject({ success: true, model_calls: 0, provider: null });
  });
});
