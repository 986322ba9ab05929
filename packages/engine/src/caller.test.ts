import { defineTool } from "@deliberate/contracts";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createEngine, defineModule, handlerDefinerFor } from "./index.ts";
import { probeAnnotations } from "./test-probe-annotations.ts";

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

const whoAmI = defineTool({
  name: "who_am_i",
  description: "Reports the caller the surface named, and the caller a nested tool call sees.",
  inputSchema: z.object({ nested: z.boolean().default(false) }),
  outputSchema: z.object({ caller: z.string().nullable() }),
  annotations: probeAnnotations("Who am I"),
  operations: [],
  usesModel: false,
});

const defineHandler = handlerDefinerFor();
const callerModule = defineModule({
  name: "caller-probe",
  tools: [
    defineHandler(whoAmI, async (input, context) =>
      input.nested
        ? ((await context.callTool("who_am_i", { nested: false })) as { caller: string | null })
        : { caller: context.caller },
    ),
  ],
});

describe("the caller's identity", () => {
  it("reaches the handler (and tools it calls) as context.caller; null when the surface names none", async () => {
    const store = await openStore({ path: ":memory:", modules: [callerModule] });
    stores.push(store);
    const engine = createEngine({
      store,
      modules: [callerModule],
      models: createModelRouterFromModel(createScriptedModel([])),
    });
    expect(await engine.invoke("who_am_i", {}, { caller: "rest-token:abc" })).toEqual({ caller: "rest-token:abc" });
    expect(await engine.invoke("who_am_i", { nested: true }, { caller: "mcp-connection:1" })).toEqual({
      caller: "mcp-connection:1",
    });
    expect(await engine.invoke("who_am_i", {})).toEqual({ caller: null });
  });
});
