import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { freshHome, startLogged, stop, userEnvironment } from "./support/user-processes.ts";

// An install whose viewer files are gone (a package built without them): neither service advertises /ui, each
// says why on stderr, and /ui is a plain 404 instead of a 500.

const installFolder = inject("installFolder");
const folder = mkdtempSync(join(tmpdir(), "deliberate-no-viewer-"));
const home = freshHome();
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
});

describe("an installed package without the viewer's files", () => {
  cpSync(installFolder, folder, { recursive: true, verbatimSymlinks: true });
  for (const name of ["http-api", "mcp-server"])
    rmSync(join(folder, "node_modules", "@deliberate", name, "dist", "browser"), { recursive: true });
  const main = (name: string) => join(folder, "node_modules", "@deliberate", name, "dist", "main.js");

  it("deliberate-api: no viewer URL in the start-up log, a warning naming the cause, /ui answers 404", async () => {
    expect(existsSync(join(folder, "node_modules", "@deliberate", "http-api", "dist", "browser"))).toBe(false);
    const env = userEnvironment({ home, extra: { PORT: "0" } });
    const { child, entry, stderr } = await startLogged({
      command: process.execPath,
      args: [main("http-api")],
      cwd: folder,
      env,
      ready: (logged) => logged["message"] === "deliberate-api listening",
    });
    try {
      expect(entry["viewer"]).toBeUndefined();
      expect(stderr.some((line) => line.includes("Session viewer not served: its browser files are missing"))).toBe(
        true,
      );
      expect((await fetch(`${String(entry["url"])}/ui`)).status).toBe(404);
      expect((await fetch(`${String(entry["url"])}/healthz`)).status).toBe(200);
    } finally {
      await stop(child);
    }
  });

  it("deliberate-mcp --http: no 'Session viewer' line, a warning naming the cause, /ui answers 404", async () => {
    const env = userEnvironment({ home });
    const { child, entry, stderr } = await startLogged({
      command: process.execPath,
      args: [main("mcp-server"), "--http", "--port", "0"],
      cwd: folder,
      env,
      ready: (logged) => String(logged["message"]).startsWith("MCP over Streamable HTTP at"),
    });
    try {
      expect(stderr.some((line) => line.includes("Session viewer: "))).toBe(false);
      expect(stderr.some((line) => line.includes("Session viewer not served: its browser files are missing"))).toBe(
        true,
      );
      const url = String(/at (http:\/\/\S+)\/mcp/.exec(String(entry["message"]))?.[1]);
      expect((await fetch(`${url}/ui`)).status).toBe(404);
    } finally {
      await stop(child);
    }
  });
});
