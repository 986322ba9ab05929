import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { repositoryRoot } from "./support/global-setup.ts";

// scripts/check-publishable.mjs, the first step of the root `pnpm release`.

const run = promisify(execFile);
const script = join(repositoryRoot, "tooling", "packed", "scripts", "check-publishable.mjs");
const fixtures: string[] = [];
afterAll(() => {
  for (const folder of fixtures) rmSync(folder, { recursive: true, force: true });
});

function workspace(packages: Record<string, object>): string {
  const root = mkdtempSync(join(tmpdir(), "deliberate-publishable-"));
  fixtures.push(root);
  for (const [folder, manifest] of Object.entries(packages)) {
    mkdirSync(join(root, folder), { recursive: true });
    writeFileSync(join(root, folder, "package.json"), JSON.stringify(manifest));
  }
  return root;
}

const complete = {
  name: "@deliberate/mcp-server",
  files: ["dist"],
  engines: { node: ">=20.19" },
  license: "MIT",
  publishConfig: { access: "public" },
  repository: { type: "git", url: "git+https://github.com/example/deliberate.git", directory: "services/mcp-server" },
};

describe("check-publishable", () => {
  it("passes this workspace's public packages", async () => {
    await expect(run(process.execPath, [script])).resolves.toMatchObject({ stderr: "" });
  });

  it("names each problem of a public manifest, and skips private packages", async () => {
    const root = workspace({
      "packages/base": {
        name: "@deliberate/base",
        private: true,
        dependencies: { "@deliberate/other": "workspace:*" },
      },
      "services/mcp-server": {
        ...complete,
        dependencies: { "@deliberate/base": "workspace:*", zod: "^4" },
        license: undefined,
        repository: { url: "x", directory: "services/elsewhere" },
      },
      "services/http-api": {
        ...complete,
        name: "@deliberate/http-api",
        repository: { ...complete.repository, directory: "services/http-api" },
      },
    });
    const failed = await run(process.execPath, [script, root]).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(1);
    const lines = (failed?.stderr ?? "").trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(
      "services/mcp-server/package.json (@deliberate/mcp-server): dependencies lists the private workspace package @deliberate/base",
    );
    expect(lines[1]).toContain("license must be an SPDX identifier");
    expect(lines[2]).toContain('"directory": "services/mcp-server"');
  });
});

describe("check-publishable --against-origin (pnpm release)", () => {
  it("refuses a repository.url that is not the clone's origin, which npm provenance would not verify", async () => {
    const root = workspace({ "services/mcp-server": complete });
    await run("git", ["init", "-q"], { cwd: root });
    await run("git", ["remote", "add", "origin", "git@github.com:someone/else.git"], { cwd: root });
    await expect(run(process.execPath, [script, root])).resolves.toMatchObject({ stderr: "" });
    await expect(run(process.execPath, [script, "--against-origin", root])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        "repository.url is git+https://github.com/example/deliberate.git but this clone's origin is git@github.com:someone/else.git",
      ),
    });
    await run("git", ["remote", "set-url", "origin", "https://github.com/example/deliberate"], { cwd: root });
    await expect(run(process.execPath, [script, "--against-origin", root])).resolves.toMatchObject({ stderr: "" });
  });
});
