import { z } from "zod";
import { describe, expect, it } from "vitest";
import { notesModule } from "../test/fixtures/notes-module.ts";
import {
  composeModules,
  defineModule,
  type ModuleOperation,
  readEnvironmentVariables,
  reportEnvironment,
} from "./index.ts";
import { errorOf, useTestEngines } from "./testing.ts";

const engines = useTestEngines({ modules: [notesModule] });

describe("module operations through the engine", () => {
  it("runs a module's operations on its own tables: validated input, the module's store, its answer as given", async () => {
    const { engine } = await engines.setup({});
    expect(
      engine.operations.map((operation) => [
        operation.qualifiedName,
        operation.method,
        operation.httpPath,
        operation.operationId,
      ]),
    ).toEqual([
      ["notes/count", "get", "/v1/notes/count", "notesCount"],
      ["notes/list", "get", "/v1/notes/sessions/:session_id", "listSessionNotes"],
      ["notes/add", "post", "/v1/notes/sessions/:session_id", "notesAdd"],
    ]);
    expect(await engine.runOperation("notes/count", {})).toEqual({ count: 0 });
    const added = (await engine.runOperation("notes/add", {
      session_id: "s1",
      topic: "caching",
      note: "Invalidate on write.",
    })) as { note_id: string };
    await engine.runOperation("notes/add", { session_id: "s1", topic: "queues", note: "Lease, then renew." });
    expect(await engine.runOperation("notes/count", undefined)).toEqual({ count: 2 });
    expect(await engine.runOperation("notes/list", { session_id: "s1", topic: "caching" })).toEqual([
      expect.objectContaining({ id: added.note_id, note: "Invalidate on write." }),
    ]);
  });

  it("refuses bad input naming each field (and as the surface names the input), and an unknown operation naming the ones there are", async () => {
    const { engine } = await engines.setup({});
    const invalid = await errorOf(
      engine.runOperation("notes/add", { session_id: "s1", topic: "", note: 3 }, { inputName: "body" }),
    );
    expect(invalid.code).toBe("INVALID_INPUT");
    expect(invalid.message).toMatch(/^Invalid input for body: /);
    expect(invalid.issues.map((issue) => issue.field).sort()).toEqual(["note", "topic"]);
    expect(await engine.runOperation("notes/count", {})).toEqual({ count: 0 });
    const unknown = await errorOf(engine.runOperation("notes/forget", {}));
    expect(unknown).toMatchObject({
      code: "NOT_FOUND",
      hint: "Available operations: notes/count, notes/list, notes/add",
    });
  });

  it("answers INTERNAL when a handler answers outside its output schema, instead of passing it on", async () => {
    const broken = defineModule({
      name: "broken",
      operations: [
        {
          name: "lie",
          method: "get",
          path: "/lie",
          summary: "Answers the wrong shape",
          output: z.object({ count: z.number() }),
          handler: async () => ({ count: "many" }) as never,
        },
      ],
    });
    const { engine } = await engines.setup({}, { modules: [broken] });
    expect(await errorOf(engine.runOperation("broken/lie", {}))).toMatchObject({
      code: "INTERNAL",
      message: expect.stringContaining("broken/lie produced output that does not match its schema"),
    });
  });
});

describe("composing operations", () => {
  const operation = (overrides: Partial<ModuleOperation>): ModuleOperation => ({
    name: "read",
    method: "get",
    path: "/read",
    summary: "Reads",
    output: z.object({}),
    handler: async () => ({}),
    ...overrides,
  });
  const compose = (...operations: ModuleOperation[]) => composeModules([defineModule({ name: "things", operations })]);

  it("refuses what could not be served, naming the module and the operation", () => {
    expect(() => compose(operation({ name: "Read" }))).toThrow(
      "Operation 'Read' of module things: names are lowerCamelCase",
    );
    expect(() => compose(operation({ path: "read" }))).toThrow(/path must be "" or start with "\/"/);
    expect(() => compose(operation({ path: "/items/:item_id" }))).toThrow(
      "path parameter :item_id is not a field of its input",
    );
    expect(() => compose(operation({ method: "delete" as never }))).toThrow("method must be get or post");
    expect(() => compose(operation({}), operation({ name: "again" }))).toThrow(
      "GET /v1/things/read is already served by things/read",
    );
    expect(() => compose(operation({}), operation({}))).toThrow("Operation 'read' of module things is declared twice");
    expect(() =>
      compose(operation({}), operation({ name: "other", path: "/other", operationId: "thingsRead" })),
    ).toThrow("operationId 'thingsRead' is already used by things/read");
    expect(() => composeModules([defineModule({ name: "Things", operations: [operation({})] })])).toThrow(
      /lower-case kebab-case/,
    );
    expect(compose(operation({ path: "" })).operations.get("things/read")).toMatchObject({
      httpPath: "/v1/things",
      operationId: "thingsRead",
      pathParameters: [],
    });
  });
});

describe("a module's environment", () => {
  const variables = [
    {
      name: "THINGS_LIMIT",
      description: "most things",
      default: 10,
      schema: z.string().regex(/^\d+$/, "must be a whole number").transform(Number).optional(),
    },
    {
      name: "THINGS_MODE",
      description: "fast or slow",
      default: "fast",
      schema: z.enum(["fast", "slow"], { error: "must be fast or slow" }).optional(),
    },
    {
      name: "THINGS_SECRET",
      description: "the key",
      secret: true,
      schema: z.string().min(16, "must be at least 16 characters").optional(),
    },
  ];

  it("parses every declared variable (empty is unset) and collects every problem, naming each variable", () => {
    expect(
      readEnvironmentVariables({ THINGS_LIMIT: " 12 ", THINGS_MODE: "", THINGS_SECRET: "0123456789abcdef" }, variables),
    ).toEqual({
      values: { THINGS_LIMIT: 12, THINGS_SECRET: "0123456789abcdef" },
      problems: [],
    });
    expect(
      readEnvironmentVariables({ THINGS_LIMIT: "many", THINGS_MODE: "sideways", THINGS_SECRET: "short" }, variables)
        .problems,
    ).toEqual([
      { message: 'THINGS_LIMIT must be a whole number (got "many")', variables: ["THINGS_LIMIT"] },
      { message: 'THINGS_MODE must be fast or slow (got "sideways")', variables: ["THINGS_MODE"] },
      { message: 'THINGS_SECRET must be at least 16 characters (got "short")', variables: ["THINGS_SECRET"] },
    ]);
  });

  it("reports every variable's value or default, never a secret's value", () => {
    expect(reportEnvironment(variables, { THINGS_MODE: "slow", THINGS_SECRET: "0123456789abcdef" })).toEqual({
      THINGS_LIMIT: 10,
      THINGS_MODE: "slow",
      THINGS_SECRET: "(set)",
    });
    expect(reportEnvironment(variables, {})).toEqual({ THINGS_LIMIT: 10, THINGS_MODE: "fast", THINGS_SECRET: null });
  });
});

describe("mode settings declared on the modes", () => {
  const mode = (id: string, settings?: { temperature: number; maxTokens: number }) => ({
    mode: id,
    ...(settings ? { settings } : {}),
    name: `${id}_answer`,
    description: "An answer",
    system: "Answer.",
    prompt: () => "?",
    output: z.object({}),
  });

  it("registers each mode id once with the settings its definitions declare; definitions without settings share them", () => {
    const composed = composeModules([
      defineModule({
        name: "things",
        modes: [
          mode("plan", { temperature: 0.2, maxTokens: 900 }),
          mode("plan"),
          { mode: "judge", settings: { temperature: 0, maxTokens: 300 } },
        ],
      }),
    ]);
    expect(composed.modes).toEqual({
      plan: { temperature: 0.2, maxTokens: 900 },
      judge: { temperature: 0, maxTokens: 300 },
    });
    // The record form of modules built before settings moved onto modes is still read.
    expect(
      composeModules([defineModule({ name: "old", modes: { plan: { temperature: 0.4, maxTokens: 100 } } })]).modes,
    ).toEqual({ plan: { temperature: 0.4, maxTokens: 100 } });
  });

  it("refuses a mode with two different settings, and one with none, naming the module and the mode", () => {
    expect(() =>
      composeModules([
        defineModule({
          name: "things",
          modes: [
            mode("plan", { temperature: 0.2, maxTokens: 900 }),
            mode("plan", { temperature: 0.9, maxTokens: 900 }),
          ],
        }),
      ]),
    ).toThrow(/Mode 'plan' of module things is declared with two different settings/);
    expect(() => composeModules([defineModule({ name: "things", modes: [mode("plan")] })])).toThrow(
      "Mode 'plan' of module things has no settings: declare them on its definition",
    );
  });
});
