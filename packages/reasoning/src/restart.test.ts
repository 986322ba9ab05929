import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { needsCompletionSchema } from "@deliberate/contracts";
import { openStore } from "@deliberate/store";
import { describe, expect, it } from "vitest";
import { createEngine, hostModelRouter } from "@deliberate/engine";
import { reasoningModule } from "./module.ts";

/** A process restart: a new store and engine on the same database file. */
async function start(path: string) {
  const store = await openStore({ path, modules: [reasoningModule] });
  return { store, engine: createEngine({ store, modules: [reasoningModule], models: hostModelRouter }) };
}

describe("state survives a restart", () => {
  it("continues a guided workflow and a suspended call after reopening the database", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "deliberate-restart-")), "deliberate.db");
    const first = await start(path);
    const run = await first.engine.invoke("startChainOfThought", { problem: "Restartable" });
    await first.engine.invoke("submitThought", { state_id: run.state_id, thought: "parts" });
    const step = needsCompletionSchema.parse(
      await first.engine.invoke("reasoning_linear", { content: "Before the restart" }),
    );
    await first.store.close();

    const second = await start(path);
    const next = await second.engine.invoke("submitThought", { state_id: run.state_id, thought: "analysis" });
    expect(next).toMatchObject({ step: "synthesize", step_number: 3 });
    const final = await second.engine.invoke("reasoning_submit", {
      resume_token: step.resume_token,
      answers: [
        {
          prompt_id: step.prompts[0]?.id,
          answer: { content: "After the restart", confidence: 0.6, next_step: "go on" },
        },
      ],
    });
    expect(final).toMatchObject({ content: "After the restart", confidence: 0.6 });
    expect(await second.store.thoughts.count(final.session_id as string)).toBe(2);
    await second.store.close();
  });
});
