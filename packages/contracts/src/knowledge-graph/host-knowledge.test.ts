import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DeliberateError } from "@deliberate/base";
import { parseInput } from "../validation.ts";
import { executeTaskRequestSchema } from "./execute-task.ts";
import { hostKnowledgeLimits } from "./host-knowledge.ts";

const name = fc.stringMatching(/^[A-Z][a-z]{0,8}$/);
const predicate = fc.stringMatching(/^[a-z][a-z_]{0,10}$/);
const variable = fc.stringMatching(/^\?[a-z][a-z0-9_]{0,4}$/);
const term = fc.oneof(name, variable);

function issuesOf(contextData: unknown): Array<{ field: string; message: string }> {
  try {
    parseInput(
      executeTaskRequestSchema,
      { taskId: "t", reasoningType: "deductive", goalQuery: "Why?", contextData },
      "reasoning/executeTask",
    );
  } catch (error) {
    if (DeliberateError.isInstance(error)) return error.issues;
    throw error;
  }
  return [];
}

describe("facts and rules as data", () => {
  it("accepts every fact by entity names, and refuses a variable in a fact naming its side", () => {
    fc.assert(
      fc.property(name, predicate, name, (subject, relation, object) => {
        expect(issuesOf({ facts: [{ subject, predicate: relation, object }] })).toEqual([]);
      }),
    );
    fc.assert(
      fc.property(name, predicate, variable, fc.constantFrom("subject", "object"), (entity, relation, free, side) => {
        const fact =
          side === "subject"
            ? { subject: free, predicate: relation, object: entity }
            : { subject: entity, predicate: relation, object: free };
        expect(issuesOf({ facts: [fact] }).map((issue) => issue.field)).toEqual([`contextData.facts.0.${side}`]);
      }),
    );
  });

  it("accepts a rule exactly when every variable of its conclusions occurs in its conditions, naming each unbound one", () => {
    const atom = fc.record({ subject: term, predicate, object: term });
    fc.assert(
      fc.property(
        fc.array(atom, { minLength: 1, maxLength: 4 }),
        fc.array(atom, { minLength: 1, maxLength: 3 }),
        (conditions, conclusions) => {
          const bound = new Set(
            conditions.flatMap((item) => [item.subject, item.object]).filter((value) => value.startsWith("?")),
          );
          const expected = conclusions.flatMap((item, index) =>
            (["subject", "object"] as const)
              .filter((side) => item[side].startsWith("?") && !bound.has(item[side]))
              .map((side) => `contextData.rules.0.conclusions.${index}.${side}`),
          );
          expect(issuesOf({ rules: [{ name: "r", conditions, conclusions }] }).map((issue) => issue.field)).toEqual(
            expected,
          );
        },
      ),
    );
  });

  it("accepts an inequality exactly when its variables occur in the conditions and it names two different terms, naming each problem", () => {
    const atom = fc.record({ subject: term, predicate, object: term });
    const pair = fc.record({ left: term, right: term });
    fc.assert(
      fc.property(
        fc.array(atom, { minLength: 1, maxLength: 4 }),
        fc.array(pair, { maxLength: 3 }),
        (conditions, different) => {
          const bound = new Set(
            conditions.flatMap((item) => [item.subject, item.object]).filter((value) => value.startsWith("?")),
          );
          const conclusions = [{ subject: "A", predicate: "q", object: "B" }];
          const expected = different.flatMap((item, index) => [
            ...(["left", "right"] as const)
              .filter((side) => item[side].startsWith("?") && !bound.has(item[side]))
              .map((side) => `contextData.rules.0.different.${index}.${side}`),
            ...(item.left.toLowerCase() === item.right.toLowerCase() ? [`contextData.rules.0.different.${index}`] : []),
          ]);
          expect(
            issuesOf({ rules: [{ name: "r", conditions, different, conclusions }] }).map((issue) => issue.field),
          ).toEqual(expected);
        },
      ),
    );
  });

  it("bounds the number of facts and rules, naming the list", () => {
    const fact = { subject: "A", predicate: "p", object: "B" };
    expect(
      issuesOf({ facts: Array.from({ length: hostKnowledgeLimits.facts + 1 }, () => fact) }).map(
        (issue) => issue.field,
      ),
    ).toEqual(["contextData.facts"]);
    const rules = Array.from({ length: hostKnowledgeLimits.rules + 1 }, (_, index) => ({
      name: `r${index}`,
      conditions: [fact],
      conclusions: [fact],
    }));
    expect(issuesOf({ rules }).map((issue) => issue.field)).toEqual(["contextData.rules"]);
  });
});
