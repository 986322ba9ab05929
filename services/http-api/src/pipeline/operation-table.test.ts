import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import { jsonBody } from "../routes/read-json.ts";
import { JsonAnswer } from "./json-operation.ts";
import { createOperationTable } from "./operation-table.ts";

const echoSchema = z.object({ text: z.string() });
const echoInput = jsonBody((value: unknown) => echoSchema.parse(value));

function tableWithOperations() {
  const table = createOperationTable();
  const app = new Hono<AppEnv>();
  table.serve(app, {
    method: "post",
    path: "/echo",
    operationId: "echo",
    summary: "Echo",
    tags: ["test"],
    request: { name: "Echo", schema: echoSchema },
    response: { description: "The text", body: { name: "Echoed", schema: echoSchema } },
    input: echoInput,
    answer: (input) => ({ text: input.text.toUpperCase() }),
  });
  table.serve(app, {
    method: "get",
    path: "/items/:item_id",
    operationId: "item",
    summary: "One item",
    tags: ["test"],
    response: { description: "The item" },
    answer: (_input, request) => new JsonAnswer({ id: request.param("item_id") }, 203, { "Cache-Control": "no-store" }),
  });
  return { table, app };
}

describe("the operation table", () => {
  it("derives the Hono route, the OpenAPI list and the direct lookup from one record", async () => {
    const { table, app } = tableWithOperations();
    expect(table.operations.map((operation) => `${operation.method} ${operation.path}`)).toEqual([
      "post /echo",
      "get /items/:item_id",
    ]);
    // The record the dispatcher answers directly is the one described in the document.
    expect(table.find("POST", "/echo")).toBe(table.operations[0]);
    const response = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hi" }),
    });
    expect([response.status, await response.json()]).toEqual([200, { text: "HI" }]);
  });

  it("finds only an exact method and a path without parameters (those are Hono's)", () => {
    const { table } = tableWithOperations();
    expect(table.find("GET", "/echo")).toBeUndefined();
    expect(table.find("POST", "/echo?x=1")).toBeUndefined();
    expect(table.find("GET", "/items/:item_id")).toBeUndefined();
    expect(table.find("GET", "/items/1")).toBeUndefined();
  });

  it("answers a JsonAnswer with its status and headers, and reads path parameters through Hono", async () => {
    const { app } = tableWithOperations();
    const response = await app.request("/items/abc");
    expect([response.status, response.headers.get("cache-control"), await response.json()]).toEqual([
      203,
      "no-store",
      { id: "abc" },
    ]);
  });

  it("refuses a body that is not JSON before the handler runs (415), and a path id holding U+0000 (400)", async () => {
    const { app } = tableWithOperations();
    app.onError((error, c) => c.json({ message: error.message }, 400));
    const refused = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(((await refused.json()) as { message: string }).message).toContain("application/json");
    const nul = await app.request("/items/a%00b");
    expect(((await nul.json()) as { message: string }).message).toContain("item_id");
  });
});
