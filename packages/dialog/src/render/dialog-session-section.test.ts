import { exportSession } from "@deliberate/engine";
import { afterEach, describe, expect, it } from "vitest";
import { createDialogTestEngine, type DialogTestEngine, scriptedDialogResponder } from "../testing/index.ts";

const engines: DialogTestEngine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((testEngine) => testEngine.store.close()));
});

describe("the dialog session section", () => {
  it("puts the dialog record in the session record and a Markdown transcript and flowchart in the exports", async () => {
    const testEngine = await createDialogTestEngine(
      scriptedDialogResponder({ reviewerScore: (turn) => (turn.iteration === 0 ? 0.5 : 0.9) }),
    );
    engines.push(testEngine);
    const { engine } = testEngine;
    const started = await engine.invoke("start_reasoning_session", { topic: "Combine the views", mode: "synthesis" });
    const sessionId = started["session_id"] as string;
    await engine.invoke("run_reasoning_exchange", { session_id: sessionId });
    await engine.invoke("run_reasoning_exchange", { session_id: sessionId });

    const record = await engine.readSession(sessionId);
    expect(record.session).toMatchObject({ id: sessionId, mode: "dialog" });
    expect(record["dialog"]).toMatchObject({
      session: { session_id: sessionId, status: "completed", stop_reason: "threshold_met" },
    });

    const markdown = exportSession(record, "markdown", engine.sections);
    expect(markdown).toContain("## Reasoning session");
    expect(markdown).toContain("**Topic:** Combine the views");
    expect(markdown).toContain("1. think produces + dialog produces (concurrently)");
    expect(markdown).toMatch(
      /### Iteration 0[\s\S]*#### think writes \(initiator, analyzing\)[\s\S]*#### synthesizer merges \(responder, synthesizing\)[\s\S]*### Iteration 1/,
    );
    expect(markdown).toContain("**Quality:** reviewers 0.90, self-assessment 0.90; status threshold_met.");
    expect(markdown).toContain("| 1 | 0.90 | 0.90 | 0.90 | 0.90 | 0.90 | 0.90 |");

    const mermaid = exportSession(record, "mermaid", engine.sections);
    expect(mermaid).toMatch(/"0: think produces"/);
    expect(mermaid).toMatch(/"1: dialog reviews 0\.90"/);
    // Per iteration: 2 producers -> merge, merge -> 2 reviewers; between iterations: 2 reviews -> 2 producers.
    expect(mermaid.match(/-->/g)).toHaveLength(2 * (2 + 2) + 2 * 2);
  });

  it("leaves sessions of other tools without a dialog section", async () => {
    const testEngine = await createDialogTestEngine(scriptedDialogResponder());
    engines.push(testEngine);
    await testEngine.store.sessions.create({ id: "plain", mode: "linear", now: "2026-11-23T10:00:00.000Z" });
    const record = await testEngine.engine.readSession("plain");
    expect(record).not.toHaveProperty("dialog");
    expect(exportSession(record, "markdown", testEngine.engine.sections)).not.toContain("Reasoning session");
  });
});
