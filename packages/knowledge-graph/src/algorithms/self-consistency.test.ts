import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { measureAgreement } from "./self-consistency.ts";

const answer = fc.constantFrom("Paris", "paris.", "The city of Paris", "Lyon", "Marseille", "It is Paris");

describe("self-consistency agreement", () => {
  it("lies between 1/n and 1, and is 1 when every sample agrees", () => {
    fc.assert(
      fc.property(fc.array(answer, { minLength: 1, maxLength: 8 }), (answers) => {
        const { agreement, clusters, chosen } = measureAgreement(answers);
        expect(agreement).toBeGreaterThanOrEqual(1 / answers.length);
        expect(agreement).toBeLessThanOrEqual(1);
        expect(clusters.flatMap((cluster) => cluster.members).sort((a, b) => a - b)).toEqual(
          answers.map((_, index) => index),
        );
        expect(clusters[0]?.members).toContain(chosen);
      }),
    );
    expect(measureAgreement(["Paris", "paris", "PARIS!"]).agreement).toBe(1);
    expect(measureAgreement(["Paris", "Lyon", "Marseille"]).agreement).toBeCloseTo(1 / 3);
  });

  it("does not depend on the order of the samples", () => {
    fc.assert(
      fc.property(fc.array(answer, { minLength: 1, maxLength: 8 }), (answers) => {
        const sizes = (list: readonly string[]) =>
          measureAgreement(list).clusters.map((cluster) => cluster.members.length);
        expect(sizes([...answers].reverse())).toEqual(sizes(answers));
        expect(measureAgreement([...answers].reverse()).agreement).toBe(measureAgreement(answers).agreement);
      }),
    );
  });

  it("picks the earliest sample of the majority", () => {
    expect(measureAgreement(["Lyon", "Paris", "paris", "Marseille"])).toMatchObject({ agreement: 0.5, chosen: 1 });
  });
});
