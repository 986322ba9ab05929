import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sqliteDriverProblem, sqliteRebuildCommand } from "./sqlite-driver-check.ts";

const nodeHome = mkdtempSync(join(tmpdir(), "deliberate-node-home-"));
afterAll(() => rmSync(nodeHome, { recursive: true, force: true }));

describe("the SQLite driver check", () => {
  it("finds nothing wrong where better-sqlite3 loads (this test's Node)", () => {
    expect(sqliteDriverProblem()).toBeUndefined();
  });

  it("rebuilds in the folder that installed it, with the Node running now first on PATH (quoted for the shell)", () => {
    expect(sqliteRebuildCommand("/home/ann/my project/node_modules/better-sqlite3", "/opt/node 22/bin/node")).toBe(
      `cd '/home/ann/my project' && PATH='/opt/node 22/bin':"$PATH" npm rebuild better-sqlite3`,
    );
    // npx's cache is an npm folder like any other.
    expect(sqliteRebuildCommand("/home/ann/.npm/_npx/1a2b/node_modules/better-sqlite3", "/usr/local/bin/node")).toMatch(
      /^cd \/home\/ann\/\.npm\/_npx\/1a2b && PATH=\/usr\/local\/bin:"\$PATH"( npm_config_nodedir=\S+)? npm rebuild better-sqlite3$/,
    );
  });

  it("uses pnpm in a pnpm layout, at the root of the install", () => {
    expect(
      sqliteRebuildCommand(
        "/work/app/node_modules/.pnpm/better-sqlite3@12.11.1/node_modules/better-sqlite3",
        "/nonexistent/bin/node",
      ),
    ).toBe(`cd /work/app && PATH=/nonexistent/bin:"$PATH" pnpm rebuild better-sqlite3`);
  });

  it("points node-gyp at the running Node's own headers when they sit next to it, so the build downloads nothing", () => {
    mkdirSync(join(nodeHome, "include", "node"), { recursive: true });
    writeFileSync(join(nodeHome, "include", "node", "node.h"), "");
    expect(sqliteRebuildCommand("/srv/app/node_modules/better-sqlite3", join(nodeHome, "bin", "node"))).toBe(
      `cd /srv/app && PATH=${join(nodeHome, "bin")}:"$PATH" npm_config_nodedir=${nodeHome} npm rebuild better-sqlite3`,
    );
  });
});
