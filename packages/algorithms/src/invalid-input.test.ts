import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { invalidInput, IssueList } from "./invalid-input.ts";

describe("IssueList", () => {
  it("throws nothing when empty", () => {
    expect(() => new IssueList().throwIfAny()).not.toThrow();
  });

  it("throws every issue as one INVALID_INPUT error with the hint", () => {
    const issues = new IssueList();
    issues.finite(Number.NaN, "a");
    issues.inRange(2, "b", 0, 1);
    issues.integer(1.5, "c", 0);
    issues.array("x", "d");
    issues.name("", "e");
    issues.uniqueNames(["x", "x"], (index) => `f.${index}`);
    let caught: unknown;
    try {
      issues.throwIfAny("fix it");
    } catch (error) {
      caught = error;
    }
    expect(DeliberateError.isInstance(caught)).toBe(true);
    const error = caught as DeliberateError;
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.hint).toBe("fix it");
    expect(error.issues.map((issue) => issue.field)).toEqual(["a", "b", "c", "d", "e", "f.1"]);
    expect(error.message).toContain("a: must be a finite number, got NaN");
  });

  it("lists at most 20 issues and counts the rest", () => {
    const issues = new IssueList();
    for (let index = 0; index < 25; index += 1) issues.add(`field.${index}`, "bad");
    expect(() => issues.throwIfAny()).toThrow(/and 5 more/);
    expect(issues.issues).toHaveLength(20);
  });

  it("throws a single-field error", () => {
    expect(() => invalidInput("x", "is wrong")).toThrow(/x: is wrong/);
  });
});
