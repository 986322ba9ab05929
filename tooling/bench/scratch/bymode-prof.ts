import { dialogModule } from "@deliberate/dialog";
import { createEngine, type DeliberateModule } from "@deliberate/engine";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { reasoningModule } from "@deliberate/reasoning";
import { openStore } from "@deliberate/store";
const modules = [reasoningModule, dialogModule as DeliberateModule];
const store = await openStore({ path: "/tmp/perf/scale/scale.db", modules });
const engine = createEngine({ store, modules, models: createModelRouterFromModel(createScriptedModel([])) });
const times: number[] = [];
for (let i = 0; i < 12; i++) { const t = performance.now(); await engine.invoke("reasoning_metrics", { query: "by_mode" }); times.push(performance.now() - t); }
console.log(times.map((x) => x.toFixed(0)).join(" "));
const t0 = performance.now(); for (let i = 0; i < 10; i++) await store.invocations.latencyAtRanks({ tool: "reasoning_tree" }, [50000, 95000, 99000]); console.log("tool-level 3 ranks", ((performance.now() - t0) / 10).toFixed(1));
const t1 = performance.now(); for (let i = 0; i < 10; i++) await store.invocations.latencyAtRanks({ tool: "reasoning_tree", operation: "list" }, [12500, 23750, 24750]); console.log("op-level 3 ranks", ((performance.now() - t1) / 10).toFixed(1));
await store.close();
