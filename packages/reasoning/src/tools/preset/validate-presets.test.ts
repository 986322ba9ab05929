import { allToolDefinitions, type ToolDefinition } from "@deliberate/contracts";
import { describe, expect, it } from "vitest";
import { builtinPresets } from "./builtin-presets.ts";
import { definePreset, type PresetDefinition, type PresetStep } from "./preset-definition.ts";
import { resolveTemplate } from "./preset-template.ts";
import { presetProblems, validatePresets } from "./validate-presets.ts";

const allDefinitions: ReadonlyMap<string, ToolDefinition> = new Map(
  allToolDefinitions.map((definition) => [definition.name, definition as unknown as ToolDefinition]),
);
const options = { knownTools: new Set(allDefinitions.keys()), definitions: allDefinitions };

function presetWith(steps: PresetStep[], extra: Partial<PresetDefinition> = {}): PresetDefinition {
  return definePreset({
    id: "sample",
    name: "Sample",
    description: "A sample preset.",
    category: "testing",
    inputs: [{ name: "topic", description: "topic", required: true }],
    steps,
    output: {},
    ...extra,
  });
}

const step = (id: string, dependsOn: string[] = [], args: PresetStep["arguments"] = { content: "x" }): PresetStep => ({
  id,
  tool: "reasoning_linear",
  description: id,
  depends_on: dependsOn,
  arguments: args,
});

describe("built-in presets", () => {
  it("are valid against every tool definition, arguments included", () => {
    expect(() => validatePresets(builtinPresets, options)).not.toThrow();
    for (const preset of builtinPresets) expect(presetProblems(preset, options)).toEqual([]);
  });

  it("cover the five required workflows, each with steps that can run concurrently", () => {
    expect(builtinPresets.map((preset) => preset.id)).toEqual([
      "code-review",
      "debug-analysis",
      "architecture-decision",
      "risk-assessment",
      "research-synthesis",
    ]);
    for (const preset of builtinPresets) {
      // Some two steps share their dependencies exactly: both become ready together.
      const signatures = preset.steps.map((candidate) => [...(candidate.depends_on ?? [])].sort().join(","));
      expect(new Set(signatures).size).toBeLessThan(signatures.length);
    }
  });
});

describe("presetProblems", () => {
  it("finds a cycle and names it in execution order", () => {
    const problems = presetProblems(presetWith([step("a", ["c"]), step("b", ["a"]), step("c", ["b"])]), options);
    expect(problems).toEqual([
      expect.stringMatching(/has a dependency cycle: (a -> b -> c -> a|b -> c -> a -> b|c -> a -> b -> c)$/),
    ]);
  });

  it("finds unknown tools, forbidden tools, unknown and self dependencies", () => {
    const problems = presetProblems(
      presetWith([
        { ...step("a"), tool: "reasoning_lineer" },
        { ...step("b", ["b"]) },
        { ...step("c", ["nope"]) },
        { ...step("d"), tool: "reasoning_preset" },
        { ...step("e"), tool: "reasoning_auto" },
      ]),
      options,
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        "preset 'sample' step 'a' calls unknown tool 'reasoning_lineer'",
        "preset 'sample' step 'b' depends on itself",
        "preset 'sample' step 'c' depends on unknown step 'nope'",
        "preset 'sample' step 'd' calls reasoning_preset, which a preset may not call",
        "preset 'sample' step 'e' calls reasoning_auto, which a preset may not call",
      ]),
    );
  });

  it("checks argument names against the tool's inputs", () => {
    const problems = presetProblems(presetWith([step("a", [], { contnet: "x" })]), options);
    expect(problems).toEqual([
      expect.stringContaining(
        "step 'a': reasoning_linear has no input 'contnet' (its inputs: content, session_id, confidence",
      ),
    ]);
  });

  it("checks references: declared inputs, dependencies only, and the session step", () => {
    const problems = presetProblems(
      presetWith(
        [
          step("root", [], { content: "{{input.topic}}", session_id: { $ref: "session_id" } }),
          step("a", [], { content: "{{steps.root.content}} {{input.nope}}" }),
          step("b", [], { content: "x", session_id: { $ref: "session_id" } }),
          step("c", ["root"], { content: "{{steps.ghost.content}} {{weird}}", $rfe: "x" } as PresetStep["arguments"]),
        ],
        { session_step: "root" },
      ),
      options,
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        "preset 'sample' step 'a' arguments.content: uses the result of step 'root' but does not depend on it",
        "preset 'sample' step 'a' arguments.content: refers to undeclared input 'nope'",
        "preset 'sample' step 'b' arguments.session_id: uses session_id but does not depend on session step 'root'",
        "preset 'sample' step 'c' arguments.content: refers to unknown step 'ghost'",
        "preset 'sample' step 'c' arguments.content: 'weird' is not a reference: use input.<name>, steps.<step id>[.field…] or session_id",
        "preset 'sample' step 'c' arguments.$rfe: unknown key (did you mean $ref?)",
        expect.stringContaining("preset 'sample' step 'c': reasoning_linear has no input '$rfe'"),
      ]),
    );
    expect(problems).toHaveLength(7);
  });

  it("accepts references to transitive dependencies", () => {
    const problems = presetProblems(
      presetWith([step("a"), step("b", ["a"]), step("c", ["b"], { content: "{{steps.a.content}}" })]),
      options,
    );
    expect(problems).toEqual([]);
  });

  it("checks ids and duplicates", () => {
    expect(presetProblems(presetWith([step("a"), step("a"), step("Bad-Id")], { id: "Not Kebab" }), options)).toEqual(
      expect.arrayContaining([
        "preset 'Not Kebab': id must be kebab-case, e.g. code-review",
        "preset 'Not Kebab' declares step 'a' twice",
        "preset 'Not Kebab' step 'Bad-Id': id must be snake_case (letters, digits, _), starting with a letter",
      ]),
    );
    expect(() => validatePresets([presetWith([step("a")]), presetWith([step("a")])], options)).toThrow(
      "preset 'sample' is defined twice",
    );
  });
});

describe("resolveTemplate", () => {
  const scope = {
    inputs: { topic: "caching", options: ["edge", "service"] },
    results: new Map<string, Record<string, unknown>>([
      [
        "tree",
        {
          branches: [
            { id: "br_1", content: "A" },
            { id: "br_2", content: "B" },
          ],
          score: 0.5,
          session_id: "ses_1",
        },
      ],
    ]),
    sessionId: "ses_9",
  };

  it("interpolates text, keeps referenced values whole, plucks lists and drops missing values", () => {
    expect(
      resolveTemplate(
        {
          text: "On {{ input.topic }} ({{steps.tree.score}}):\n{{input.options}}",
          first: "{{steps.tree.branches.1.content}}",
          options: { $ref: "input.options" },
          ids: { $ref: "steps.tree.branches", pluck: "id" },
          session_id: { $ref: "session_id" },
          missing: { $ref: "steps.tree.nothing" },
          nested: [{ $ref: "input.nothing" }, 3, null, { keep: true }],
          empty: "[{{steps.nowhere.content}}]",
        },
        scope,
      ),
    ).toEqual({
      text: "On caching (0.5):\n- edge\n- service",
      first: "B",
      options: ["edge", "service"],
      ids: ["br_1", "br_2"],
      session_id: "ses_9",
      nested: [3, null, { keep: true }],
      empty: "[]",
    });
  });
});
