import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelRouterFromModel } from "@deliberate/providers";
import { createScriptedModel } from "@deliberate/providers/testing";
import { openStore } from "@deliberate/store";
import { afterEach, describe, expect, it } from "vitest";
import { createEngine } from "@deliberate/engine";
import { reasoningModule } from "./module.ts";
import { bySchemaName } from "./test-support.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("analysis results are persisted", () => {
  it("records each tool's computed result in the session, readable through a second connection", async () => {
    const directory = mkdtempSync(join(tmpdir(), "deliberate-analysis-"));
    directories.push(directory);
    const path = join(directory, "deliberate.db");
    const model = createScriptedModel(
      bySchemaName({
        detect_biases: {
          detections: [
            {
              type: "anchoring",
              severity: "medium",
              confidence: 0.5,
              evidence: "the first quote",
              explanation: "e",
              remediation: "r",
            },
          ],
        },
      }),
    );
    const writer = await openStore({ path, modules: [reasoningModule] });
    const engine = createEngine({
      store: writer,
      modules: [reasoningModule],
      models: createModelRouterFromModel(model),
    });

    const decision = await engine.invoke("reasoning_decision", {
      options: ["A", "B"],
      criteria: [{ name: "x", weight: 1 }],
      scores: [[1], [2]],
    });
    const sessionId = decision.session_id as string;
    await engine.invoke("reasoning_evidence", {
      type: "probabilistic",
      hypothesis: "h",
      prior: 0.5,
      evidence: [{ content: "e", likelihood_if_true: 0.9, likelihood_if_false: 0.3 }],
      session_id: sessionId,
    });
    await engine.invoke("reasoning_counterfactual", {
      scenario: "s",
      intervention: "i",
      session_id: sessionId,
      causal_model: { variables: ["a", "b"], relationships: [{ cause: "a", effect: "b", strength: 2 }] },
      intervention_target: { variable: "a", change: 1 },
    });
    await engine.invoke("reasoning_detect", {
      type: "biases",
      content: "We anchored on the first quote we got.",
      session_id: sessionId,
    });
    await writer.close();

    const reader = await openStore({ path });
    try {
      const thoughts = await reader.thoughts.listBySession(sessionId);
      expect(thoughts.map((thought) => thought.mode)).toEqual([
        "decision",
        "evidence",
        "counterfactual",
        "input",
        "detect",
      ]);
      expect(thoughts[0]?.metadata).toMatchObject({
        rankings: [
          { option: "B", score: 1, rank: 1 },
          { option: "A", score: 0, rank: 2 },
        ],
      });
      expect(thoughts[1]?.metadata).toMatchObject({ posterior: 0.75, likelihood_ratio: expect.closeTo(3, 12) });
      expect(thoughts[2]?.metadata).toMatchObject({
        effects: [
          { variable: "a", change: 1 },
          { variable: "b", change: 2 },
        ],
      });
      expect(thoughts[4]?.metadata).toMatchObject({
        detections: [{ type: "anchoring", evidence: "the first quote", evidence_span: { start: 15, end: 30 } }],
      });
      const invocations = await reader.invocations.list();
      expect(invocations.map((invocation) => [invocation.tool, invocation.model_calls])).toEqual(
        expect.arrayContaining([
          ["reasoning_decision", 0],
          ["reasoning_evidence", 0],
          ["reasoning_counterfactual", 0],
          ["reasoning_detect", 1],
        ]),
      );
    } finally {
      await reader.close();
    }
  });
});
