import { describe, expect, it } from "vitest";
import { httpParseRefusal, rawHttpResponse } from "./http-parse-refusal.ts";

describe("httpParseRefusal", () => {
  it("names the headers for a bad header, the request for other parser errors, and keeps node's 431 and 408", () => {
    expect(httpParseRefusal("HPE_INVALID_HEADER_TOKEN", true)).toMatchObject({ kind: "invalid", field: "(headers)" });
    expect(httpParseRefusal("HPE_INVALID_HEADER_VALUE", true)).toMatchObject({ kind: "invalid", field: "(headers)" });
    expect(httpParseRefusal("HPE_INVALID_METHOD", true)).toMatchObject({
      kind: "invalid",
      field: "(request)",
      message: expect.stringContaining("HPE_INVALID_METHOD"),
    });
    expect(httpParseRefusal("HPE_HEADER_OVERFLOW", true)).toEqual({
      kind: "status",
      status: "431 Request Header Fields Too Large",
    });
    expect(httpParseRefusal("ERR_HTTP_REQUEST_TIMEOUT", true)).toEqual({
      kind: "status",
      status: "408 Request Timeout",
    });
  });

  it("only closes a reset, a socket no longer writable, or an error that is not the parser's", () => {
    expect(httpParseRefusal("ECONNRESET", true)).toEqual({ kind: "close" });
    expect(httpParseRefusal("HPE_INVALID_HEADER_TOKEN", false)).toEqual({ kind: "close" });
    expect(httpParseRefusal("EPIPE", true)).toEqual({ kind: "close" });
    expect(httpParseRefusal(undefined, true)).toEqual({ kind: "close" });
  });

  it("writes a closing response whose length counts bytes, not characters", () => {
    expect(rawHttpResponse("408 Request Timeout")).toBe(
      "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
    );
    const response = rawHttpResponse("400 Bad Request", { json: '{"m":"é"}', headers: { "X-Request-Id": "r1" } });
    expect(response).toContain("Content-Length: 10\r\n");
    expect(response).toContain("X-Request-Id: r1\r\n");
    expect(response.endsWith('\r\n\r\n{"m":"é"}')).toBe(true);
  });
});
