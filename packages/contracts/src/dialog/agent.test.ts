import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { agentListSchema, dialogLimits } from "./agent.ts";
import { defaultDialogPlan, dialogPlanProblems } from "./plan.ts";
import { startReasoningSessionInputSchema } from "./start-reasoning-session.ts";

const issuesOf = (schema: z.ZodType, value: unknown) =>
  (schema.safeParse(value).error?.issues ?? []).map((issue) => [issue.path.join("."), issue.message]);

const nameArbitrary = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,20}$/);
const agentArbitrary = (name: string) =>
  fc.record({
    name: fc.constant(name),
    role: fc.string({ minLength: 1, maxLength: 60 }).filter((text) => text.trim().length > 0),
    systemPrompt: fc.string({ minLength: 1, maxLength: 300 }).filter((text) => text.trim().length > 0),
  });
/** 2..8 agents with names unique ignoring case. */
const validAgentsArbitrary = fc
  .uniqueArray(nameArbitrary, { minLength: 2, maxLength: 8, selector: (name) => name.toLowerCase() })
  .chain((names) => fc.tuple(...names.map(agentArbitrary)));

describe("custom agents", () => {
  it("accepts every list of 2 to 8 agents with unique names and bounded prompts", () => {
    fc.assert(
      fc.property(validAgentsArbitrary, (agents) => {
        expect(agentListSchema.safeParse(agents).success).toBe(true);
      }),
    );
  });

  it("rejects a repeated name (in any case), naming the later agent's name field", () => {
    fc.assert(
      fc.property(validAgentsArbitrary, fc.nat(), fc.nat(), fc.boolean(), (agents, from, to, upper) => {
        const source = from % agents.length;
        let target = to % agents.length;
        if (target === source) target = (target + 1) % agents.length;
        const copy = agents.map((agent) => ({ ...agent }));
        const name = (copy[source] as { name: string }).name;
        (copy[target] as { name: string }).name = upper ? name.toUpperCase() : name;
        const later = Math.max(source, target);
        const issues = issuesOf(agentListSchema, copy);
        expect(issues).toContainEqual([`${later}.name`, expect.stringContaining("agent names must be unique")]);
      }),
    );
  });

  it("rejects fewer than 2 or more than 8 agents", () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 9, max: 14 })), (count) => {
        const agents = Array.from({ length: count }, (_, index) => ({
          name: `agent${index}`,
          role: "r",
          systemPrompt: "p",
        }));
        const issues = issuesOf(agentListSchema, agents);
        expect(issues).toHaveLength(1);
        expect(issues[0]?.[0]).toBe("");
        expect(issues[0]?.[1]).toMatch(count < 2 ? /at least 2 agents/ : /at most 8 agents/);
      }),
    );
  });

  it("bounds the system prompt, the role and the name, naming the field", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4000 }),
        fc.constantFrom("systemPrompt", "role", "name"),
        (extra, field) => {
          const limit =
            field === "systemPrompt"
              ? dialogLimits.maxSystemPromptLength
              : field === "role"
                ? dialogLimits.maxRoleLength
                : dialogLimits.maxAgentNameLength;
          const agents = [
            { name: "a", role: "r", systemPrompt: "p" },
            { name: "b", role: "r", systemPrompt: "p", [field]: `x${"y".repeat(limit + extra - 1)}` },
          ];
          expect(issuesOf(agentListSchema, agents)).toEqual([
            [`1.${field}`, expect.stringContaining(`at most ${limit} characters`)],
          ]);
        },
      ),
    );
  });

  it("takes temperature and maxTokens as numbers or their strings, within bounds", () => {
    const base = { name: "a", role: "r", systemPrompt: "p" };
    expect(
      agentListSchema.parse([
        { ...base, temperature: "0.4", maxTokens: "500" },
        { ...base, name: "b" },
      ])[0],
    ).toMatchObject({ temperature: 0.4, maxTokens: 500 });
    expect(
      issuesOf(agentListSchema, [
        { ...base, temperature: 3 },
        { ...base, name: "b", maxTokens: 10 },
      ]).map(([field]) => field),
    ).toEqual(["0.temperature", "1.maxTokens"]);
    expect(issuesOf(agentListSchema, [base, { ...base, name: "2nd" }])).toEqual([
      ["1.name", expect.stringContaining("must start with a letter")],
    ]);
  });
});

describe("plans", () => {
  it("the default plan of any 2 to 8 agents is valid and lets every agent speak", () => {
    fc.assert(
      fc.property(fc.uniqueArray(nameArbitrary, { minLength: 2, maxLength: 8 }), (names) => {
        const plan = defaultDialogPlan(names);
        expect(dialogPlanProblems(plan, names)).toEqual([]);
        expect(plan[plan.length - 1]?.every((turn) => turn.act === "review")).toBe(true);
      }),
    );
  });

  it("names what is wrong with a plan", () => {
    const names = ["a", "b", "c"];
    expect(
      dialogPlanProblems([[{ agent: "a", act: "review" }], [{ agent: "b", act: "review" }]], ["a", "b"]).map(
        (problem) => problem.message,
      ),
    ).toEqual([
      "the first step must produce the document (act 'produce')",
      "step 0 reviews before any document exists",
      "step 1 reviews before any document exists",
    ]);
    expect(
      dialogPlanProblems(
        [
          [
            { agent: "a", act: "produce" },
            { agent: "b", act: "produce" },
          ],
          [{ agent: "c", act: "review" }],
        ],
        names,
      ),
    ).toEqual([{ path: [1], message: "step 1 reviews 2 documents; add a merge step before it" }]);
    expect(dialogPlanProblems([[{ agent: "a", act: "produce" }], [{ agent: "x", act: "review" }]], ["a", "b"])).toEqual(
      [
        { path: [1, 0, "agent"], message: "'x' is not an agent of this session; agents: a, b" },
        { path: [], message: "agent 'b' never speaks; give it a turn or leave it out of agents" },
      ],
    );
    expect(dialogPlanProblems([[{ agent: "a", act: "produce" }], [{ agent: "b", act: "merge" }]], ["a", "b"])).toEqual([
      { path: [1], message: "the last step must review the document (act 'review'): its scores decide when to stop" },
    ]);
  });

  it("refuses a reviewer of its own document: the author of the current document never reviews it", () => {
    // bob produces, alice refines it, alice would review her own refinement.
    const plan = [
      [{ agent: "bob", act: "produce" as const }],
      [{ agent: "alice", act: "produce" as const }],
      [{ agent: "alice", act: "review" as const }],
    ];
    expect(dialogPlanProblems(plan, ["bob", "alice"])).toEqual([
      {
        path: [2, 0, "agent"],
        message:
          "'alice' would review the document it wrote in step 1; a reviewer never reviews its own document: give this review to another agent ('bob'), or let another agent write step 1",
      },
    ]);
    expect(
      dialogPlanProblems(
        [
          [{ agent: "a", act: "produce" }],
          [
            { agent: "a", act: "review" },
            { agent: "b", act: "review" },
          ],
        ],
        ["a", "b"],
      ).map((problem) => problem.path),
    ).toEqual([[1, 0, "agent"]]);
    // A merger's document is the merger's: contributors may review it, the merger may not.
    expect(
      dialogPlanProblems(
        [
          [
            { agent: "a", act: "produce" },
            { agent: "b", act: "produce" },
          ],
          [{ agent: "c", act: "merge" }],
          [
            { agent: "a", act: "review" },
            { agent: "b", act: "review" },
          ],
        ],
        ["a", "b", "c"],
      ),
    ).toEqual([]);
    expect(
      dialogPlanProblems(
        [[{ agent: "a", act: "produce" }], [{ agent: "b", act: "merge" }], [{ agent: "b", act: "review" }]],
        ["a", "b"],
      ).map((problem) => problem.path),
    ).toEqual([[2, 0, "agent"]]);
    // Any plan that passes gives no reviewer the document it wrote.
    fc.assert(
      fc.property(
        fc.array(
          fc.array(
            fc.record({
              agent: fc.constantFrom("a", "b", "c"),
              act: fc.constantFrom("produce" as const, "merge" as const, "review" as const),
            }),
            { minLength: 1, maxLength: 3 },
          ),
          { minLength: 2, maxLength: 5 },
        ),
        (candidate) => {
          if (dialogPlanProblems(candidate, ["a", "b", "c"]).length > 0) return;
          let authors = new Set<string>();
          for (const step of candidate) {
            if (step[0]?.act === "review") for (const turn of step) expect(authors.has(turn.agent)).toBe(false);
            else authors = new Set(step.map((turn) => turn.agent));
          }
        },
      ),
    );
    const issues = issuesOf(startReasoningSessionInputSchema, {
      topic: "t",
      agents: [
        { name: "bob", role: "r", systemPrompt: "p" },
        { name: "alice", role: "r", systemPrompt: "p" },
      ],
      turns: plan,
    });
    expect(issues).toEqual([
      ["turns.2.0.agent", expect.stringContaining("'alice' would review the document it wrote in step 1")],
    ]);
  });

  it("validates turns against the custom agents in start_reasoning_session, naming the turn", () => {
    const agents = [
      { name: "advocate", role: "r", systemPrompt: "p" },
      { name: "skeptic", role: "r", systemPrompt: "p" },
    ];
    expect(
      issuesOf(startReasoningSessionInputSchema, {
        topic: "t",
        agents,
        turns: [[{ agent: "advocate", act: "produce" }], [{ agent: "judge", act: "review" }]],
      }),
    ).toEqual([
      ["turns.1.0.agent", "'judge' is not an agent of this session; agents: advocate, skeptic"],
      ["turns", "agent 'skeptic' never speaks; give it a turn or leave it out of agents"],
    ]);
    expect(issuesOf(startReasoningSessionInputSchema, { topic: "t", turns: [] })).toEqual([
      ["turns", "turns needs custom agents; a preset's agents speak in the preset's order"],
    ]);
    expect(
      issuesOf(startReasoningSessionInputSchema, {
        topic: "t",
        agents,
        turns: [[{ agent: "advocate", act: "produce" }]],
      }),
    ).toEqual([["turns", "a plan needs at least two steps (a document, then its review)"]]);
  });
});
