import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { DeliberateClientError } from "../errors.ts";
import { fromMcpError, outputOfToolResult } from "./mcp-transport.ts";

// How MCP failures become client errors (the end-to-end tests meet the common ones for real).

const body = {
  code: "NOT_FOUND",
  message: "Unknown session ses_1",
  issues: [{ field: "session_id", message: "no such session" }],
  hint: "List sessions.",
  retryable: false,
};

describe("fromMcpError", () => {
  it.each([
    ["a JSON-RPC error carrying the error body keeps its code", new ProtocolError(-32000, "x", body), "NOT_FOUND"],
    ["method not found is a missing capability", new ProtocolError(-32601, "Method not found"), "CAPABILITY_MISSING"],
    ["invalid params without a body is invalid input", new ProtocolError(-32602, "bad"), "INVALID_INPUT"],
    ["internal error", new ProtocolError(-32603, "boom"), "INTERNAL"],
    ["the SDK's request timeout", new SdkError(SdkErrorCode.RequestTimeout, "timed out"), "TIMEOUT"],
    ["a closed connection", new SdkError(SdkErrorCode.ConnectionClosed, "closed"), "CONNECTION_FAILED"],
    ["not connected", new SdkError(SdkErrorCode.NotConnected, "no"), "CONNECTION_FAILED"],
    [
      "a result the SDK could not validate",
      new SdkError(SdkErrorCode.InvalidResult, "bad result"),
      "MALFORMED_RESPONSE",
    ],
    [
      "HTTP 401 from the endpoint",
      new SdkHttpError(SdkErrorCode.SendFailed, "Unauthorized", { status: 401 }),
      "UNAUTHORIZED",
    ],
    [
      "HTTP 502 from the endpoint",
      new SdkHttpError(SdkErrorCode.SendFailed, "Bad gateway", { status: 502 }),
      "CONNECTION_FAILED",
    ],
    ["anything else", new TypeError("fetch failed"), "CONNECTION_FAILED"],
  ])("%s", (_what, error, code) => {
    const mapped = fromMcpError(error, "reasoning/executeTask", 1_000, undefined);
    expect(mapped.code).toBe(code);
    expect(mapped.message.length).toBeGreaterThan(0);
  });

  it("keeps the body's issues and hint, and says the call was aborted when the caller aborted", () => {
    expect(fromMcpError(new ProtocolError(-32000, "x", body), "m", 1, undefined).toJSON()).toMatchObject({
      code: "NOT_FOUND",
      issues: body.issues,
      hint: "List sessions.",
    });
    const controller = new AbortController();
    controller.abort();
    expect(fromMcpError(new SdkError(SdkErrorCode.RequestTimeout, "t"), "m", 1, controller.signal).code).toBe(
      "ABORTED",
    );
  });
});

describe("outputOfToolResult", () => {
  it("returns structuredContent, or the JSON of the text", () => {
    expect(
      outputOfToolResult({ content: [{ type: "text", text: '{"a":1}' }], structuredContent: { a: 1 } }, "t"),
    ).toEqual({ a: 1 });
    expect(outputOfToolResult({ content: [{ type: "text", text: '{"b":2}' }] }, "t")).toEqual({ b: 2 });
  });

  it("throws an error result with its code, and calls text that is not JSON malformed", () => {
    const error = (() => {
      try {
        outputOfToolResult({ isError: true, content: [{ type: "text", text: JSON.stringify(body) }] }, "t");
      } catch (caught) {
        return caught;
      }
    })();
    expect(DeliberateClientError.isInstance(error) && error.code).toBe("NOT_FOUND");
    expect(() => outputOfToolResult({ content: [{ type: "text", text: "hello" }] }, "t")).toThrow(/not JSON/);
    expect(() => outputOfToolResult({ content: [] }, "t")).toThrow(/neither structuredContent nor text/);
  });
});
