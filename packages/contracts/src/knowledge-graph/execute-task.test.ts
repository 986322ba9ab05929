import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DeliberateError } from "@deliberate/base";
import { parseInput } from "../validation.ts";
import { endSessionRequestSchema } from "./end-session.ts";
import { executeTaskRequestSchema, executeTaskResponseSchema } from "./execute-task.ts";
import { knowledgeGraphToolDefinitions } from "./tools.ts";
import { cotVariationSchema, reasoningTypeSchema } from "./vocabulary.ts";

const text = fc.string({ minLength: 1, maxLength: 40 }).filter((value) => value.trim().length > 0);
const sessionId = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,30}$/);

const validRequest = fc.record(
  {
    taskId: text,
    reasoningType: fc.constantFrom(...reasoningTypeSchema.options),
    goalQuery: text,
    reasoningSessionId: fc.option(sessionId, { nil: null }),
    preferredCoTVariation: fc.option(fc.constantFrom(...cotVariationSchema.options, "chainOfVerification"), {
      nil: null,
    }),
    outputRequirements: fc.option(
      fc.record({
        format: fc.constantFrom("finalAnswerWithTrace", "detailedPlanWithPrompts"),
        maxSteps: fc.option(fc.integer({ min: 1, max: 50 }), { nil: null }),
      }),
      { nil: undefined },
    ),
  },
  { requiredKeys: ["taskId", "reasoningType", "goalQuery"] },
);

function issuesOf(value: unknown): Array<{ field: string; message: string }> {
  try {
    parseInput(executeTaskRequestSchema, value, "reasoning/executeTask");
  } catch (error) {
    if (DeliberateError.isInstance(error)) return error.issues;
    throw error;
  }
  return [];
}

describe("executeTask request", () => {
  it("accepts every well-formed request, and reports an unsupported CoT variation later rather than refusing it", () => {
    fc.assert(
      fc.property(validRequest, (request) => {
        const parsed = executeTaskRequestSchema.parse(request);
        expect(parsed.taskId).toBe(request.taskId.trim());
        expect(parsed.reasoningType).toBe(request.reasoningType);
      }),
    );
  });

  it("names each missing required field", () => {
    fc.assert(
      fc.property(validRequest, fc.constantFrom("taskId", "reasoningType", "goalQuery"), (request, field) => {
        const { [field as keyof typeof request]: _removed, ...rest } = request;
        expect(issuesOf(rest).map((issue) => issue.field)).toContain(field);
      }),
    );
  });

  it("names an unknown field instead of dropping it (a typo is not silently ignored)", () => {
    fc.assert(
      fc.property(
        validRequest,
        fc.stringMatching(/^[a-z][A-Za-z_]{2,20}$/).filter((key) => !(key in executeTaskRequestSchema.shape)),
        (request, key) => {
          expect(issuesOf({ ...request, [key]: "x" }).map((issue) => issue.field)).toEqual([key]);
        },
      ),
    );
    expect(
      issuesOf({ taskId: "t", reasoningType: "deductive", goalQuery: "q", contextData: { domainKnowlege: "x" } })[0]
        ?.field,
    ).toBe("contextData.domainKnowlege");
  });

  it("refuses reasoning types outside the list, naming the field", () => {
    fc.assert(
      fc.property(
        text.filter((value) => !(reasoningTypeSchema.options as readonly string[]).includes(value)),
        (type) => {
          expect(issuesOf({ taskId: "t", reasoningType: type, goalQuery: "q" }).map((issue) => issue.field)).toEqual([
            "reasoningType",
          ]);
        },
      ),
    );
  });

  it("requires a session for toolResults and userInput, and one kind of answer at a time", () => {
    const base = { taskId: "t", reasoningType: "planAndExecuteCoT", goalQuery: "q" };
    expect(issuesOf({ ...base, toolResults: [{ toolCallId: "c1", result: 1 }] }).map((issue) => issue.field)).toEqual([
      "toolResults",
    ]);
    expect(issuesOf({ ...base, userInput: "yes" }).map((issue) => issue.field)).toEqual(["userInput"]);
    expect(
      issuesOf({
        ...base,
        reasoningSessionId: "s",
        userInput: "yes",
        toolResults: [{ toolCallId: "c", result: 1 }],
      }).map((issue) => issue.field),
    ).toEqual(["userInput"]);
    expect(
      issuesOf({ ...base, reasoningSessionId: "s", toolResults: [{ toolCallId: "c" }] }).map((issue) => issue.field),
    ).toEqual(["toolResults.0.result"]);
    expect(
      issuesOf({
        ...base,
        reasoningSessionId: "s",
        toolResults: [
          { toolCallId: "c", result: 1 },
          { toolCallId: "c", result: 2 },
        ],
      }).map((issue) => issue.field),
    ).toEqual(["toolResults.1.toolCallId"]);
    expect(issuesOf({ ...base, reasoningSessionId: "s", toolResults: [{ toolCallId: "c", result: null }] })).toEqual(
      [],
    );
  });

  it("checks the host's tool schemas, as a list or keyed by name", () => {
    const base = { taskId: "t", reasoningType: "planAndExecuteCoT", goalQuery: "q" };
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    expect(issuesOf({ ...base, contextData: { availableTools: [{ name: "weather", inputSchema: schema }] } })).toEqual(
      [],
    );
    expect(issuesOf({ ...base, contextData: { availableTools: { weather: { inputSchema: schema } } } })).toEqual([]);
    expect(
      issuesOf({ ...base, contextData: { availableTools: [{ name: "a" }, { name: "a" }] } }).map(
        (issue) => issue.field,
      ),
    ).toEqual(["contextData.availableTools.1.name"]);
    expect(
      issuesOf({ ...base, contextData: { availableTools: [{ name: "a", inputSchema: { type: "string" } }] } }).map(
        (issue) => issue.field,
      ),
    ).toEqual(["contextData.availableTools.0.inputSchema.type"]);
  });

  it("refuses tool schemas whose patterns only a backtracking engine can check, naming the pattern", () => {
    const base = { taskId: "t", reasoningType: "planAndExecuteCoT", goalQuery: "q" };
    const withPattern = (pattern: string) => ({ type: "object", properties: { city: { type: "string", pattern } } });
    const refused = issuesOf({
      ...base,
      contextData: {
        availableTools: [
          { name: "a", inputSchema: withPattern("^(?<=x)a$") },
          { name: "b", inputSchema: withPattern("^(\\w+)\\s\\1$") },
          { name: "c", inputSchema: { type: "object", patternProperties: { "^(a+){2,40}$": {} } } },
          // Nested + and * run on V8's linear-time fallback; classes and escaped brackets are no groups.
          { name: "d", inputSchema: withPattern("^([a-z0-9]+[-_]?)+$") },
          { name: "e", inputSchema: withPattern("^[(?=\\1]\\(?!x\\)$") },
        ],
      },
    });
    expect(refused.map((issue) => issue.field)).toEqual([
      "contextData.availableTools.0.inputSchema.properties.city.pattern",
      "contextData.availableTools.1.inputSchema.properties.city.pattern",
      "contextData.availableTools.2.inputSchema.patternProperties",
    ]);
    expect(refused.map((issue) => issue.message)).toEqual([
      expect.stringContaining("lookaround"),
      expect.stringContaining("backreference"),
      expect.stringContaining("{n,m}"),
    ]);
  });

  it("refuses tool schemas whose $ref leads back to itself without describing a value, naming it", () => {
    const base = { taskId: "t", reasoningType: "planAndExecuteCoT", goalQuery: "q" };
    const refused = issuesOf({
      ...base,
      contextData: {
        availableTools: {
          loop: {
            inputSchema: {
              type: "object",
              $defs: { a: { $ref: "#/$defs/a" } },
              properties: { city: { $ref: "#/$defs/a" } },
            },
          },
          root: { inputSchema: { type: "object", allOf: [{ $ref: "#" }] } },
          // Recursion through properties describes a part of the value each time: fine.
          tree: {
            inputSchema: {
              type: "object",
              properties: { name: { type: "string" }, children: { type: "array", items: { $ref: "#" } } },
            },
          },
        },
      },
    });
    expect(refused.map((issue) => issue.field)).toEqual([
      "contextData.availableTools.loop.inputSchema.$defs.a.$ref",
      "contextData.availableTools.root.inputSchema.allOf.0.$ref",
    ]);
    expect(refused[0]?.message).toContain("never end");
  });

  it("refuses a tool schema whose $refs expand it exponentially, naming it", () => {
    const defs: Record<string, unknown> = { d40: { type: "string" } };
    for (let level = 0; level < 40; level += 1)
      defs[`d${level}`] = { anyOf: [{ $ref: `#/$defs/d${level + 1}` }, { $ref: `#/$defs/d${level + 1}` }] };
    const issues = issuesOf({
      taskId: "t",
      reasoningType: "planAndExecuteCoT",
      goalQuery: "q",
      contextData: {
        availableTools: [
          { name: "bomb", inputSchema: { type: "object", $defs: defs, properties: { city: { $ref: "#/$defs/d0" } } } },
        ],
      },
    });
    expect(issues).toEqual([
      {
        field: "contextData.availableTools.0.inputSchema",
        message: expect.stringContaining("subschemas through its $refs"),
      },
    ]);
  });

  it("bounds maxSteps and desiredConfidenceLevel", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -100, max: 200 }),
        fc.double({ min: -2, max: 3, noNaN: true }),
        (maxSteps, level) => {
          const issues = issuesOf({
            taskId: "t",
            reasoningType: "deductive",
            goalQuery: "q",
            outputRequirements: { maxSteps, desiredConfidenceLevel: level },
          });
          const fields = issues.map((issue) => issue.field);
          expect(fields.includes("outputRequirements.maxSteps")).toBe(maxSteps < 1 || maxSteps > 50);
          expect(fields.includes("outputRequirements.desiredConfidenceLevel")).toBe(level < 0 || level > 1);
        },
      ),
    );
  });
});

describe("executeTask functional predicates", () => {
  it("takes up to 64 predicate names of 1 to 80 characters, naming the field that breaks a bound", () => {
    const request = (functionalPredicates: unknown) => ({
      taskId: "t",
      reasoningType: "deductive",
      goalQuery: "q",
      contextData: { functionalPredicates },
    });
    expect(issuesOf(request(["born_in", "Capital Of"]))).toEqual([]);
    expect(issuesOf(request([""]))).toEqual([
      { field: "contextData.functionalPredicates.0", message: "a functional predicate must not be empty" },
    ]);
    expect(issuesOf(request(["x".repeat(81)]))).toEqual([
      { field: "contextData.functionalPredicates.0", message: "a functional predicate is at most 80 characters" },
    ]);
    expect(issuesOf(request(Array.from({ length: 65 }, (_, index) => `p${index}`)))).toEqual([
      { field: "contextData.functionalPredicates", message: "at most 64 functionalPredicates" },
    ]);
    expect(issuesOf(request("born_in")).map((issue) => issue.field)).toEqual(["contextData.functionalPredicates"]);
  });
});

describe("endSession request", () => {
  it("needs a session to end", () => {
    expect(endSessionRequestSchema.safeParse({}).success).toBe(false);
    expect(endSessionRequestSchema.safeParse({ reasoningSessionId: "s1" }).success).toBe(true);
    expect(endSessionRequestSchema.safeParse({ sessionState: { token: "x" } }).success).toBe(true);
  });
});

describe("tool definitions", () => {
  it("convert to JSON Schema for MCP and REST (input and output)", () => {
    for (const tool of knowledgeGraphToolDefinitions) {
      const input = z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "any" });
      expect(input.type).toBe("object");
      expect(z.toJSONSchema(tool.outputSchema, { unrepresentable: "any" }).type).toBe("object");
    }
  });

  it("the response schema accepts a minimal failed response", () => {
    const response = {
      taskId: "t",
      reasoningSessionId: null,
      status: "failed",
      result: null,
      toolCallRequest: null,
      userInputRequest: null,
      error: { code: 4220, reason: "EXTRACTION_EMPTY", message: "nothing found", details: null },
      updatedSessionState: null,
      notices: [],
    };
    // A response from a server before retryable and sessionExpiresAt existed still parses, with their defaults.
    expect(executeTaskResponseSchema.parse(response)).toEqual({
      ...response,
      error: { ...response.error, retryable: false },
      sessionExpiresAt: null,
    });
  });
});
