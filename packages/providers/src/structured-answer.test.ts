import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkAnswer, describeAnswerFormat, parseStructuredAnswer, toWireName } from "./structured-answer.ts";

const scoreSchema = z.object({ label: z.string().min(1), score: z.number().min(0).max(1) });

describe("describeAnswerFormat", () => {
  it("turns the zod schema into an object JSON schema without the $schema dialect", () => {
    const format = describeAnswerFormat({
      schema: scoreSchema,
      schemaName: "score card",
      schemaDescription: "A score.",
    });
    expect(format).toMatchObject({ name: "score_card", description: "A score.", wrapped: false });
    expect(format.jsonSchema).toMatchObject({ type: "object", required: ["label", "score"] });
    expect(format.jsonSchema).not.toHaveProperty("$schema");
  });

  it("wraps a schema whose root is not an object", () => {
    const format = describeAnswerFormat({ schema: z.array(z.number()) });
    expect(format.wrapped).toBe(true);
    expect(format.jsonSchema).toMatchObject({
      type: "object",
      properties: { value: { type: "array" } },
      required: ["value"],
    });
  });
});

describe("toWireName", () => {
  it("always yields a valid tool / json_schema name", () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), (name) => {
        expect(toWireName(name)).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      }),
    );
  });
});

describe("checkAnswer", () => {
  it("accepts exactly the answers the schema accepts, naming the fields of the others", () => {
    fc.assert(
      fc.property(fc.record({ label: fc.string(), score: fc.double({ noNaN: true }) }), (candidate) => {
        const expectedValid = candidate.label.length > 0 && candidate.score >= 0 && candidate.score <= 1;
        const result = checkAnswer(scoreSchema, { ok: true, value: candidate }, false);
        expect(result.ok).toBe(expectedValid);
        if (!result.ok) {
          expect(result.issues.length).toBeGreaterThan(0);
          for (const issue of result.issues) expect(["label", "score"]).toContain(issue.field);
        }
      }),
    );
  });

  it("reports an unparsable answer as one issue on the whole answer", () => {
    expect(checkAnswer(scoreSchema, { ok: false, problem: "not JSON" }, false)).toEqual({
      ok: false,
      issues: [{ field: "(answer)", message: "not JSON" }],
    });
  });

  it("unwraps wrapped answers, and tolerates a model that skipped the wrapper", () => {
    const schema = z.array(z.number());
    expect(checkAnswer(schema, { ok: true, value: { value: [1, 2] } }, true)).toEqual({ ok: true, value: [1, 2] });
    expect(checkAnswer(schema, { ok: true, value: [3] }, true)).toEqual({ ok: true, value: [3] });
  });
});

describe("parseStructuredAnswer", () => {
  it("finds and validates the JSON in a text answer", () => {
    expect(parseStructuredAnswer('Sure: {"label": "ok", "score": 0.5}', scoreSchema)).toEqual({
      ok: true,
      value: { label: "ok", score: 0.5 },
    });
    expect(parseStructuredAnswer('{"label": "ok", "score": 2}', scoreSchema)).toMatchObject({
      ok: false,
      issues: [{ field: "score" }],
    });
  });
});
