import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "./support/global-setup.ts";

// The root's pnpm:devPreinstall script: before pnpm installs anything, it names the fix for a better-sqlite3
// build that cannot download anything (npm_config_nodedir), instead of leaving node-gyp's download error.

const run = promisify(execFile);
const script = join(repositoryRoot, "tooling", "scripts", "check-native-build.mjs");
const home = mkdtempSync(join(tmpdir(), "deliberate-native-check-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs the check with no headers configured or cached (an empty HOME and cache), probing `probes`. */
function check(probes: string, extra: NodeJS.ProcessEnv = {}) {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env["PATH"],
    HOME: home,
    XDG_CACHE_HOME: join(home, "cache"),
    DELIBERATE_NATIVE_BUILD_PROBES: probes,
    ...extra,
  };
  return run(process.execPath, [script], { env });
}

describe("check-native-build (pnpm:devPreinstall)", () => {
  it("offline from nodejs.org and GitHub: one line naming npm_config_nodedir with this Node's headers, and the install goes on", async () => {
    const { stdout, stderr } = await check("http://127.0.0.1:9/,http://127.0.0.1:9/other");
    expect(stdout).toBe("");
    const lines = stderr.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("better-sqlite3 cannot download a prebuilt binary or Node's headers");
    expect(lines[0]).toMatch(/npm_config_nodedir=\S+ pnpm install/);
    // This Node's own headers, when they sit next to it (Debian's /usr, an official build's folder).
    const nodeHome = dirname(dirname(process.execPath));
    if (existsSync(join(nodeHome, "include", "node", "node.h")))
      expect(lines[0]).toContain(`npm_config_nodedir=${nodeHome} pnpm install`);
    else expect(lines[0]).toContain("npm_config_nodedir=<that folder> pnpm install");
  });

  it("says nothing when a download source answers, or npm_config_nodedir is set", async () => {
    const server = createServer((_, response) => response.writeHead(200).end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      expect((await check(`http://127.0.0.1:9/,http://127.0.0.1:${port}/`)).stderr).toBe("");
    } finally {
      server.close();
    }
    expect((await check("http://127.0.0.1:9/", { npm_config_nodedir: "/usr" })).stderr).toBe("");
  });
});
