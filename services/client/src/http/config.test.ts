import { describe, expect, it } from "vitest";
import { isClientError } from "../errors.ts";
import { httpDefaults, resolveHttpConnection } from "./config.ts";

describe("resolveHttpConnection", () => {
  it("defaults to the spec's values with an empty environment", () => {
    const connection = resolveHttpConnection({ env: {} });
    expect(connection).toMatchObject({
      baseUrl: httpDefaults.baseUrl,
      token: undefined,
      timeoutMs: 5_000,
      retries: 2,
      version: "v1",
    });
  });

  it("reads REASONING_API_URL, _TOKEN, _TIMEOUT_MS, _RETRIES and _VERSION", () => {
    const connection = resolveHttpConnection({
      env: {
        REASONING_API_URL: "https://api.example.com/base/",
        REASONING_API_TOKEN: "secret-token",
        REASONING_API_TIMEOUT_MS: "750",
        REASONING_API_RETRIES: "0",
        REASONING_API_VERSION: "v1",
      },
    });
    expect(connection).toMatchObject({
      baseUrl: "https://api.example.com/base",
      token: "secret-token",
      timeoutMs: 750,
      retries: 0,
      version: "v1",
    });
  });

  it("lets options win over the environment", () => {
    const connection = resolveHttpConnection({
      baseUrl: "http://10.0.0.1:9000",
      timeoutMs: 100,
      retries: 5,
      token: "t",
      version: "1",
      env: { REASONING_API_URL: "http://ignored", REASONING_API_TIMEOUT_MS: "9" },
    });
    expect(connection).toMatchObject({
      baseUrl: "http://10.0.0.1:9000",
      timeoutMs: 100,
      retries: 5,
      token: "t",
      version: "1",
    });
  });

  it("uses the caller's default timeout when neither option nor environment sets one", () => {
    expect(resolveHttpConnection({ env: {} }, { timeoutMs: 120_000 }).timeoutMs).toBe(120_000);
    expect(resolveHttpConnection({ env: { REASONING_API_TIMEOUT_MS: "10" } }, { timeoutMs: 120_000 }).timeoutMs).toBe(
      10,
    );
  });

  it.each([
    [{ REASONING_API_TIMEOUT_MS: "soon" }, "REASONING_API_TIMEOUT_MS"],
    [{ REASONING_API_TIMEOUT_MS: "0" }, "REASONING_API_TIMEOUT_MS"],
    [{ REASONING_API_RETRIES: "-1" }, "REASONING_API_RETRIES"],
    [{ REASONING_API_RETRIES: "1.5" }, "REASONING_API_RETRIES"],
    [{ REASONING_API_URL: "not a url" }, "REASONING_API_URL"],
    [{ REASONING_API_URL: "ftp://example.com" }, "REASONING_API_URL"],
  ])("names the bad variable: %j", (env, variable) => {
    let caught: unknown;
    try {
      resolveHttpConnection({ env });
    } catch (error) {
      caught = error;
    }
    expect(isClientError(caught, "CONFIGURATION")).toBe(true);
    if (isClientError(caught)) expect(caught.issues.map((issue) => issue.field)).toEqual([variable]);
  });
});
