import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { clientVersion } from "./version.ts";

describe("clientVersion", () => {
  it("is the package's version (sent as the MCP client info)", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(clientVersion).toBe(manifest.version);
  });
});
