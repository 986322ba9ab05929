import { DeliberateError } from "@deliberate/contracts";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getJson, postJson, startService, type RunningService } from "./support/service-harness.ts";

let running: RunningService;
// biome-ignore lint/suspicious/noExplicitAny: the document is asserted on field by field
let document: any;
beforeAll(async () => {
  running = await startService();
  document = (await getJson(`${running.url}/openapi.json`)).json;
});
afterAll(async () => {
  await running.stop();
});

describe("the OpenAPI document", () => {
  it("names its server and passes Redocly's recommended lint (no errors; the only warning: the project declares no license)", async () => {
    expect(document.servers).toEqual([{ url: "/", description: "The server that served this document" }]);
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: "openapi.json",
      config: await createConfig("extends: [recommended]"),
    }); // YAML: an object literal costs tsc a second to relate to the config type
    const summary = problems.map(
      (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? ""}`,
    );
    expect(summary.filter((line) => line.startsWith("error"))).toEqual([]);
    expect(summary.filter((line) => !line.startsWith("warn info-license"))).toEqual([]);
    // The recommended rules did run: they warn about the missing license.
    expect(summary.some((line) => line.startsWith("warn info-license"))).toBe(true);
  });

  it("publishes the defaults of fields that also accept strings, and never marks a defaulted request field required for a client generator", async () => {
    const tree = document.paths["/v1/tools/reasoning_tree"].post.requestBody.content["application/json"].schema;
    expect(tree.properties.num_branches.default).toBe(3);
    expect(tree.required ?? []).not.toContain("num_branches");
    const mcts = document.paths["/v1/tools/reasoning_mcts"].post.requestBody.content["application/json"].schema;
    expect(mcts.properties).toMatchObject({
      iterations: { default: 10 },
      exploration_constant: { default: Math.SQRT2 },
      quality_threshold: { default: 0.5 },
    });

    // The generated client types (openapi-typescript): every defaulted field of every request body is optional (`name?:`),
    // so the README's own reasoning_decision body (no normalization) type-checks.
    const types = astToString(await openapiTS(document));
    let checked = 0;
    for (const item of Object.values(
      document.paths as Record<
        string,
        {
          post?: {
            operationId: string;
            requestBody?: {
              content: Record<string, { schema: { properties?: Record<string, { default?: unknown }> } }>;
            };
          };
        }
      >,
    )) {
      const operation = item.post;
      if (!operation?.requestBody) continue;
      const start = types.indexOf(`    ${operation.operationId}: {`);
      const body = types.slice(types.indexOf("requestBody: {", start), types.indexOf("responses: {", start));
      for (const [name, property] of Object.entries(
        operation.requestBody.content["application/json"]?.schema.properties ?? {},
      )) {
        if (property.default === undefined) continue;
        checked += 1;
        expect(body, `${operation.operationId}.${name}`).toMatch(new RegExp(`^ {20}${name}\\?:`, "m"));
      }
    }
    expect(checked).toBeGreaterThan(15);
  });

  it("documents the session page parameters with their default size", () => {
    const parameters = document.paths["/v1/sessions/{session_id}"].get.parameters as Array<{
      name: string;
      in: string;
      schema?: { default?: unknown };
    }>;
    expect(
      parameters
        .filter((parameter) => parameter.in === "query")
        .map((parameter) => [parameter.name, parameter.schema?.default]),
    ).toEqual([
      ["limit", 100],
      ["offset", 0],
    ]);
  });
});

describe("GET /docs", () => {
  it("loads its script and styles from the service itself, pinned, with no CDN", async () => {
    const page = await (await fetch(`${running.url}/docs`)).text();
    expect(page).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
    expect(sources).toEqual(
      expect.arrayContaining(["docs/assets/swagger-ui-bundle.js", "docs/assets/swagger-ui.css", "docs/assets/init.js"]),
    );
    const { version } = (await import("swagger-ui-dist/package.json", { with: { type: "json" } })).default as {
      version: string;
    };
    const packageJson = (await import("../package.json", { with: { type: "json" } })).default as {
      dependencies: Record<string, string>;
    };
    expect(packageJson.dependencies["swagger-ui-dist"]).toBe(version);
    for (const source of sources.filter((item) => item.startsWith("docs/"))) {
      const asset = await fetch(new URL(source, `${running.url}/docs`));
      expect(asset.status, source).toBe(200);
      expect(asset.headers.get("content-type")).toMatch(source.endsWith(".css") ? /text\/css/ : /javascript/);
      expect((await asset.text()).length).toBeGreaterThan(10);
    }
    expect((await fetch(`${running.url}/docs/assets/nope.js`)).status).toBe(404);
  });
});

describe("GET /v1/sessions/{id}", () => {
  it("pages a large session's lists: ?limit&offset honoured, 100 items by default, page totals and next offset", async () => {
    const first = await postJson(`${running.url}/v1/tools/reasoning_checkpoint`, {
      operation: "list",
      session_id: "ses_none",
    });
    expect(first.status).toBe(404);
    // 250 thoughts through the store the service uses (the tools would need a model for each).
    const store = running.service.store;
    const now = new Date().toISOString();
    await store.sessions.create({ id: "ses_big", mode: "linear", now });
    for (let index = 0; index < 250; index += 1) {
      await store.thoughts.append({
        id: `th_${String(index).padStart(3, "0")}`,
        session_id: "ses_big",
        content: `Thought ${index}`,
        mode: "linear",
        confidence: 0.5,
        created_at: now,
      });
    }
    const whole = await getJson(`${running.url}/v1/sessions/ses_big`);
    expect(whole.status).toBe(200);
    expect(whole.json.thoughts).toHaveLength(100);
    expect(whole.json.page).toMatchObject({ offset: 0, limit: 100, next_offset: 100, totals: { thoughts: 250 } });

    const window = await getJson(`${running.url}/v1/sessions/ses_big?limit=10&offset=100`);
    expect(window.json.thoughts.map((thought: { content: string }) => thought.content)).toEqual(
      Array.from({ length: 10 }, (_, index) => `Thought ${100 + index}`),
    );
    expect(window.json.page).toMatchObject({ offset: 100, limit: 10, next_offset: 110 });

    const thoughts = await getJson(`${running.url}/v1/sessions/ses_big/thoughts?offset=240`);
    expect(thoughts.json.thoughts).toHaveLength(10);
    expect(thoughts.json.page).toMatchObject({ offset: 240, next_offset: null, totals: { thoughts: 250 } });

    const bad = await getJson(`${running.url}/v1/sessions/ses_big?limit=5000&offset=-1`);
    expect(bad.status).toBe(400);
    expect(bad.json.error.issues.map((issue: { field: string }) => issue.field).sort()).toEqual(["limit", "offset"]);
  });
});

describe("errors that would leak internals", () => {
  it("answer INTERNAL with a stable message and an error id; the details go to the log under that id", async () => {
    const engine = running.service.engine;
    const original = engine.invoke;
    engine.invoke = async () => {
      throw new DeliberateError({
        code: "INTERNAL",
        message:
          "reasoning_decision produced output that does not match its schema: [{ code: invalid_type, path: [ranking] }] Maximum call stack size exceeded",
      });
    };
    try {
      const response = await postJson(`${running.url}/v1/tools/reasoning_decision`, {
        question: "q",
        options: ["a", "b"],
      });
      expect(response.status).toBe(500);
      expect(response.text).not.toContain("invalid_type");
      expect(response.text).not.toContain("call stack");
      const errorId = response.json.error.error_id as string;
      expect(errorId).toMatch(/^err_/);
      expect(response.json.error.message).toContain(errorId);
      const logged = running.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((entry) => entry["error_id"] === errorId);
      expect(JSON.stringify(logged)).toContain("invalid_type");

      const streamed = await fetch(`${running.url}/v1/tools/reasoning_decision`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ question: "q", options: ["a", "b"] }),
      });
      const events = await streamed.text();
      expect(events).toContain("event: error");
      expect(events).not.toContain("invalid_type");
      expect(events).toMatch(/"error_id":"err_[0-9a-f]{16}"/);
    } finally {
      engine.invoke = original;
    }
  });
});
