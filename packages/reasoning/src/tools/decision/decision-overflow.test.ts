import { describe, expect, it } from "vitest";
import { errorOf, useTestEngines } from "../../test-support.ts";

const { setup } = useTestEngines();
const noModel = () => {
  throw new Error("the model must not be called");
};

async function rows(store: Awaited<ReturnType<typeof setup>>["store"]) {
  const count = async (table: "sessions" | "thoughts" | "invocations") =>
    Number(
      (
        await store.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    sessions: await count("sessions"),
    thoughts: await count("thoughts"),
    invocations: await count("invocations"),
  };
}

describe("reasoning_decision with scores near the largest double", () => {
  it("ranks [[1e308, 2], [-1e308, 4]] with finite scores instead of failing after writing", async () => {
    const { engine, store } = await setup(noModel);
    const output = (await engine.invoke("reasoning_decision", {
      type: "weighted",
      question: "Which?",
      options: ["A", "B"],
      criteria: [
        { name: "x", weight: 1 },
        { name: "y", weight: 1 },
      ],
      scores: [
        [1e308, 2],
        [-1e308, 4],
      ],
    })) as { rankings: Array<{ score: number }> };
    expect(output.rankings.every((ranked) => Number.isFinite(ranked.score))).toBe(true);
    expect(await rows(store)).toEqual({ sessions: 1, thoughts: 1, invocations: 1 });
  });

  it("answers an overflowing total with INVALID_INPUT naming the option's scores, and writes nothing", async () => {
    const { engine, store } = await setup(noModel);
    const error = await errorOf(
      engine.invoke("reasoning_decision", {
        type: "weighted",
        question: "Which?",
        options: ["A", "B"],
        criteria: [{ name: "price", weight: 1, direction: "cost" }],
        normalization: "none",
        scores: [[1.5e308], [1.4e308]],
      }),
    );
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues.map((issue) => issue.field)).toContain("scores.0");
    expect(await rows(store)).toEqual({ sessions: 0, thoughts: 0, invocations: 0 });
  });
});
