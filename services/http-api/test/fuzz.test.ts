import { agentIntentRequestSchema, type JsonSchema } from "@deliberate/contracts";
import { brokenJson, fieldsWithWrongValues, wrongValueFor } from "@deliberate/contracts/testing";
import fc from "fast-check";
import { Agent, request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { cancelRequestSchema } from "../src/queue/job.schema.ts";
import { workflowIntentRequestSchema } from "../src/workflow/workflow-intent.schema.ts";
import { countRows, startService, type RunningService } from "./support/service-harness.ts";

// A bounded fuzz of the REST surface: a few thousand generated bad requests
// from a fixed seed and from a random one (printed; set FUZZ_SEED to replay
// it), over real HTTP. Every request must be answered with a 4xx JSON error
// naming a field, the service must keep serving, and nothing may be written.

const fixedSeed = 20_261_122;
const randomSeed = Number(process.env["FUZZ_SEED"] ?? Math.floor(Math.random() * 2 ** 31));
const perSeed = Number(process.env["FUZZ_MESSAGES"] ?? 1500);

interface Endpoint {
  path: string;
  properties: Record<string, JsonSchema>;
}

type Kind = "malformed-json" | "not-an-object" | "wrong-field" | "too-deep" | "unknown-tool";
interface BadRequest {
  kind: Kind;
  path: string;
  body: string;
}

function generate(seed: number, count: number, endpoints: Endpoint[]): BadRequest[] {
  const usable = endpoints.filter((endpoint) => fieldsWithWrongValues(endpoint.properties).length > 0);
  const junk = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).filter((key) => key !== "__proto__"),
    fc.jsonValue({ maxDepth: 3 }),
    { maxKeys: 3 },
  );
  const arbitrary = fc.tuple(
    fc.oneof(
      { weight: 2, arbitrary: fc.constant("malformed-json" as const) },
      { weight: 1, arbitrary: fc.constant("not-an-object" as const) },
      { weight: 6, arbitrary: fc.constant("wrong-field" as const) },
      { weight: 1, arbitrary: fc.constant("too-deep" as const) },
      { weight: 1, arbitrary: fc.constant("unknown-tool" as const) },
    ),
    fc.nat(),
    fc.nat(),
    junk,
    fc.oneof(
      fc.string({ maxLength: 30 }),
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
    ),
    fc.oneof(
      fc.integer(),
      fc.string(),
      fc.constant(null),
      fc.boolean(),
      fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
    ),
    fc.integer({ min: 65, max: 4000 }),
  );
  return fc
    .sample(arbitrary, { seed, numRuns: count })
    .map(([kind, endpointPick, valuePick, extra, text, scalar, depth]): BadRequest => {
      const endpoint = usable[endpointPick % usable.length] as Endpoint;
      switch (kind) {
        case "malformed-json":
          return { kind, path: endpoint.path, body: brokenJson(text, valuePick) };
        case "not-an-object":
          return { kind, path: endpoint.path, body: JSON.stringify(scalar) };
        case "wrong-field": {
          const fields = fieldsWithWrongValues(endpoint.properties);
          const field = fields[valuePick % fields.length] as string;
          const extraKeys = Object.fromEntries(Object.entries(extra).filter(([key]) => !(key in endpoint.properties)));
          return {
            kind,
            path: endpoint.path,
            body: JSON.stringify({
              ...extraKeys,
              [field]: wrongValueFor(endpoint.properties[field] as JsonSchema, valuePick),
            }),
          };
        }
        case "too-deep":
          return { kind, path: endpoint.path, body: `{"metadata":${'{"a":'.repeat(depth)}1${"}".repeat(depth)}}` };
        case "unknown-tool":
          return { kind, path: `/v1/tools/not_a_tool_${valuePick}`, body: JSON.stringify(extra) };
      }
    });
}

// The requests go out through node:http with a keep-alive agent rather than fetch: the server sees the same
// requests, and the client costs a fraction of fetch's CPU (most of this test's was the client's).
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * A keep-alive socket the server closes just as the client reuses it (a race under heavy load) fails the
 * request before the server reads it; such a request is sent once more on a new socket (Node's documented
 * pattern: only when `reusedSocket` is set).
 */
let socketRetries = 0;
function postOnce(url: string, body: string, retried = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        response.on("error", reject);
      },
    );
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (!retried && request.reusedSocket && error.code === "ECONNRESET") {
        socketRetries += 1;
        resolve(postOnce(url, body, true));
      } else reject(error);
    });
    request.end(body);
  });
}

let running: RunningService;
beforeAll(async () => {
  // No rate limit: thousands of requests from one client are the point here.
  running = await startService({ REASONING_API_RATE_LIMIT: "0", LOG_LEVEL: "error" });
});
afterAll(async () => {
  agent.destroy();
  await running.stop();
});

describe("fuzz: REST", () => {
  it("answers every bad request with a 4xx naming a field, keeps serving, and writes nothing", {
    timeout: 120_000,
  }, async () => {
    const started = Date.now();
    const propertiesOf = (schema: z.ZodType) =>
      (z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, JsonSchema> })
        .properties ?? {};
    const endpoints: Endpoint[] = [
      ...running.service.engine.tools.map((tool) => ({
        path: `/v1/tools/${tool.name}`,
        properties: propertiesOf(tool.inputSchema),
      })),
      { path: "/agent_intent", properties: propertiesOf(agentIntentRequestSchema) },
      { path: "/agent_intent_async", properties: propertiesOf(agentIntentRequestSchema) },
      { path: "/agent_intent_cancel", properties: propertiesOf(cancelRequestSchema) },
      { path: "/workflow_intent", properties: propertiesOf(workflowIntentRequestSchema) },
    ];
    const before = await countRows(running.service.store);
    const requests = [...generate(fixedSeed, perSeed, endpoints), ...generate(randomSeed, perSeed, endpoints)];
    const problems: string[] = [];
    for (let index = 0; index < requests.length; index += 16) {
      const batch = requests.slice(index, index + 16);
      await Promise.all(
        batch.map(async (request) => {
          const describe = `${request.kind} ${request.path} ${request.body.slice(0, 140)}`;
          const response = await postOnce(`${running.url}${request.path}`, request.body);
          const text = response.text;
          let body: { status?: string; error?: { code?: string; issues?: Array<{ field?: string }> } } | undefined;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          if (response.status < 400 || response.status >= 500)
            problems.push(`status ${response.status}: ${describe} -> ${text.slice(0, 200)}`);
          else if (body?.status !== "error" || !body.error?.code)
            problems.push(`no error body: ${describe} -> ${text.slice(0, 200)}`);
          else if (!body.error.issues?.some((issue) => typeof issue.field === "string" && issue.field !== ""))
            problems.push(`names no field: ${describe} -> ${text.slice(0, 300)}`);
          else if (request.kind !== "unknown-tool" && body.error.code !== "INVALID_INPUT")
            problems.push(`code ${body.error.code}: ${describe}`);
        }),
      );
    }
    const kinds: Record<string, number> = {};
    for (const request of requests) kinds[request.kind] = (kinds[request.kind] ?? 0) + 1;
    console.log(
      `[fuzz] REST: ${requests.length} requests (seeds ${fixedSeed} fixed, ${randomSeed} random; replay with FUZZ_SEED=${randomSeed}), ` +
        `${problems.length} problems, ${Date.now() - started} ms, ${socketRetries} socket retries; ${JSON.stringify(kinds)}`,
    );
    expect(problems.slice(0, 10)).toEqual([]);
    expect(await countRows(running.service.store)).toEqual(before);
    expect((await fetch(`${running.url}/healthz`)).status).toBe(200);
  });
});
