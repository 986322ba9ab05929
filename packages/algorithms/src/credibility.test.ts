import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectInvalid } from "./test-support.ts";
import { assessCredibility, type CredibilityEvidence, type SourceType } from "./credibility.ts";

describe("assessCredibility", () => {
  it("combines tier, corroboration and custody (hand-worked)", () => {
    const result = assessCredibility({
      evidence: [
        { source_type: "primary", source: "court record", corroborated_by: [1, 2], chain_of_custody: "intact" },
        { source_type: "secondary", source: "newspaper", corroborated_by: [0] },
        { source_type: "anecdotal", source: "blog", chain_of_custody: "broken" },
      ],
    });
    const [first, second, third] = result.evidence_assessments;
    // 0.5·1 + 0.25·(1 − 0.5²) + 0.25·1 = 0.9375
    expect(first).toMatchObject({
      source_tier: "primary",
      corroborated_by: [1, 2],
      corroboration_count: 2,
      corroboration_score: 0.75,
      custody_score: 1,
    });
    expect(first?.credibility_score).toBeCloseTo(0.9375, 12);
    // 0.5·0.6 + 0.25·0.5 + 0.25·0.5 (custody unknown) = 0.55
    expect(second).toMatchObject({ chain_of_custody: "unknown", custody_score: 0.5, corroboration_count: 1 });
    expect(second?.credibility_score).toBeCloseTo(0.55, 12);
    // 0.5·0.15 + 0 + 0 = 0.075
    expect(third?.credibility_score).toBeCloseTo(0.075, 12);
    expect(result.overall_credibility).toBeCloseTo((0.9375 + 0.55 + 0.075) / 3, 12);
  });

  it("counts distinct independent sources only", () => {
    const result = assessCredibility({
      evidence: [
        { source_type: "secondary", source: "wire", corroborated_by: [1, 2, 3, 3] },
        { source_type: "secondary", source: "wire" }, // same source: no credit
        { source_type: "secondary", source: "paper" },
        { source_type: "secondary", source: "paper" }, // same other source as item 2: counted once
      ],
    });
    expect(result.evidence_assessments[0]).toMatchObject({
      corroborated_by: [1, 2, 3],
      corroboration_count: 1,
      corroboration_score: 0.5,
    });
  });

  it("accepts a custody fraction and custom weights", () => {
    const result = assessCredibility({
      evidence: [{ source_type: "expert", chain_of_custody: 0.8 }],
      weights: { source: 1, corroboration: 0, custody: 1 },
    });
    expect(result.weights).toEqual({ source: 0.5, corroboration: 0, custody: 0.5 });
    expect(result.evidence_assessments[0]).toMatchObject({ chain_of_custody: "fraction", custody_score: 0.8 });
    expect(result.overall_credibility).toBeCloseTo(0.5 * 0.75 + 0.5 * 0.8, 12);
  });

  it("rejects bad input naming the field", () => {
    expectInvalid(() => assessCredibility({ evidence: [] }), "evidence");
    expectInvalid(
      () => assessCredibility({ evidence: [{ source_type: "rumour" as SourceType }] }),
      "evidence.0.source_type",
    );
    expectInvalid(
      () => assessCredibility({ evidence: [{ source_type: "primary", chain_of_custody: "lost" as "broken" }] }),
      "evidence.0.chain_of_custody",
    );
    expectInvalid(
      () => assessCredibility({ evidence: [{ source_type: "primary", chain_of_custody: 1.5 }] }),
      "evidence.0.chain_of_custody",
    );
    expectInvalid(
      () => assessCredibility({ evidence: [{ source_type: "primary", corroborated_by: [0] }] }),
      "evidence.0.corroborated_by.0",
    );
    expectInvalid(
      () => assessCredibility({ evidence: [{ source_type: "primary", corroborated_by: [3] }] }),
      "evidence.0.corroborated_by.0",
    );
    expectInvalid(
      () => assessCredibility({ evidence: [{ source_type: "primary", corroborated_by: 1 as unknown as number[] }] }),
      "evidence.0.corroborated_by",
    );
    expectInvalid(
      () => assessCredibility({ evidence: [{ source_type: "primary", source: 7 as unknown as string }] }),
      "evidence.0.source",
    );
    expectInvalid(
      () =>
        assessCredibility({
          evidence: [{ source_type: "primary" }],
          weights: { source: -1, corroboration: 1, custody: 1 },
        }),
      "weights.source",
    );
    expectInvalid(
      () =>
        assessCredibility({
          evidence: [{ source_type: "primary" }],
          weights: { source: 0, corroboration: 0, custody: 0 },
        }),
      "weights",
    );
  });

  it("keeps every score within [0, 1] and rewards corroboration with diminishing returns", () => {
    const tiers: SourceType[] = ["primary", "secondary", "tertiary", "expert", "anecdotal"];
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            tier: fc.constantFrom(...tiers),
            custody: fc.oneof(
              fc.constantFrom("intact" as const, "partial" as const, "broken" as const, "unknown" as const),
              fc.double({ min: 0, max: 1, noNaN: true }),
            ),
            source: fc.option(fc.constantFrom("s1", "s2", "s3"), { nil: undefined }),
            links: fc.array(fc.nat(), { maxLength: 4 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        (items) => {
          const evidence: CredibilityEvidence[] = items.map((item, index) => ({
            source_type: item.tier,
            chain_of_custody: item.custody,
            ...(item.source === undefined ? {} : { source: item.source }),
            corroborated_by: item.links.map((link) => link % items.length).filter((link) => link !== index),
          }));
          const result = assessCredibility({ evidence });
          expect(result.overall_credibility).toBeGreaterThanOrEqual(0);
          expect(result.overall_credibility).toBeLessThanOrEqual(1);
          for (const assessment of result.evidence_assessments) {
            expect(assessment.credibility_score).toBeGreaterThanOrEqual(0);
            expect(assessment.credibility_score).toBeLessThanOrEqual(1);
            expect(assessment.corroboration_score).toBe(1 - 0.5 ** assessment.corroboration_count);
          }
        },
      ),
    );
  });
});
