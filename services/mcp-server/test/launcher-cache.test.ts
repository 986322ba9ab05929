import { execFile } from "node:child_process";
import { isAscii } from "node:buffer";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { builtServer } from "./support/server-process.ts";

// The launcher's V8 code cache is only worth having if the next start takes it. V8 refuses a cache made
// under other flags, so a flag the server sets while it runs (the regexp fallback) must be in force before
// the launcher compiles, or every start recompiles and rewrites the cache.
// A copy of the built launcher and bundle in a folder of its own (inside the package, so the bundle's
// external dependencies still resolve), so no other test's server shares its cache file.

const run = promisify(execFile);
const distFolder = dirname(builtServer);
const folder = mkdtempSync(join(dirname(distFolder), ".launcher-cache-test-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const cacheFile = () => readdirSync(folder).find((name) => name.endsWith(".cache"));
const nodeMajor = Number(process.versions.node.split(".")[0]);

describe("the launcher's code cache", () => {
  it("is written by the first start and taken, not rewritten, by the next", async () => {
    for (const file of ["main.js", "server.cjs", "package.json"])
      copyFileSync(join(distFolder, file), join(folder, file));
    const start = () =>
      run(process.execPath, [join(folder, "main.js"), "--print-config", "claude-code"], {
        // The user cache folder inside the test's own (Node 22+ keeps its compile cache there).
        env: { PATH: process.env["PATH"] ?? "", XDG_CACHE_HOME: join(folder, "xdg-first") },
      });
    await start();
    const written = cacheFile();
    expect(written).toBeDefined();
    const before = statSync(join(folder, written as string)).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const { stdout } = await start();
    expect(stdout).toContain("claude mcp add");
    expect(cacheFile()).toBe(written);
    expect(statSync(join(folder, written as string)).mtimeMs).toBe(before);
  });
});

describe("a code cache that does not fit the bundle", () => {
  // V8 checks a code cache against the source's length only: a cache of another bundle of the same length was
  // taken, and its functions ran instead of the bundle's (an update that changed one character, a version digit).
  it("is not taken when the bundle changed but kept its length", async () => {
    const own = mkdtempSync(join(dirname(distFolder), ".launcher-cache-test-"));
    try {
      for (const file of ["main.js", "server.cjs", "package.json"])
        copyFileSync(join(distFolder, file), join(own, file));
      const start = () =>
        run(process.execPath, [join(own, "main.js"), "--print-config", "claude-code"], {
          env: { PATH: process.env["PATH"] ?? "", XDG_CACHE_HOME: join(own, "xdg") },
        });
      expect((await start()).stdout).toContain("claude mcp add");
      expect(readdirSync(own).some((name) => name.endsWith(".cache"))).toBe(true);
      const bundle = join(own, "server.cjs");
      const before = readFileSync(bundle, "latin1");
      const after = before.replaceAll("claude mcp add", "claude mcp ADD");
      expect(after).not.toBe(before);
      expect(after.length).toBe(before.length);
      writeFileSync(bundle, after, "latin1");
      const { stdout } = await start();
      expect(stdout).toContain("claude mcp ADD");
      expect(stdout).not.toContain("claude mcp add");
      // The earlier bundle's cache is replaced, not kept beside the new one (an update would leave one each).
      expect(readdirSync(own).filter((name) => name.endsWith(".cache"))).toHaveLength(1);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe("the published package", () => {
  // The caches a start writes next to the bundle are this machine's: a tarball packed after a start shipped one.
  it("holds the launcher's dist/package.json, and no code cache", async () => {
    await run(process.execPath, [builtServer, "--print-config", "claude-code"], {
      env: { PATH: process.env["PATH"] ?? "", XDG_CACHE_HOME: join(folder, "xdg-pack") },
    });
    expect(readdirSync(distFolder).some((name) => name.includes(".cache"))).toBe(true);
    const { stdout } = await run("pnpm", ["pack", "--dry-run", "--json"], {
      cwd: dirname(distFolder),
      env: { ...process.env },
    });
    const paths = (JSON.parse(stdout) as { files: Array<{ path: string }> }).files.map((file) => file.path);
    expect(paths).toContain("dist/package.json");
    expect(paths).toContain("dist/main.js");
    expect(paths).toContain("dist/server.cjs");
    expect(paths.filter((path) => path.includes(".cache"))).toEqual([]);
  });
});

describe("what a start reads", () => {
  // An ASCII bundle is read byte for byte as a one-byte string (no UTF-8 decoding; V8 scans half the bytes).
  // One character outside ASCII (a "•" in a regular expression, which esbuild does not escape) made it two-byte.
  it("the bundle is ASCII", () => {
    const bytes = readFileSync(builtServer.replace(/main\.js$/, "server.cjs"));
    const first = bytes.findIndex((byte) => byte > 0x7f);
    expect(
      isAscii(bytes),
      `byte ${first}: ${bytes.subarray(Math.max(0, first - 60), first + 20).toString("utf8")}`,
    ).toBe(true);
  });

  // An ES module entry makes Node set up its ES module loader before the first line runs; the launcher and the
  // bundle are CommonJS, and the one ES module the bundle loaded at start (ext-apps' server entry) is inlined.
  it("the launcher is CommonJS and the bundle loads no ES module before the first answer", async () => {
    expect(JSON.parse(readFileSync(join(distFolder, "package.json"), "utf8"))).toEqual({ type: "commonjs" });
    const bundle = readFileSync(builtServer.replace(/main\.js$/, "server.cjs"), "utf8");
    expect(bundle).not.toContain('require("@modelcontextprotocol/ext-apps');
    // Node's debug log names every ES module it loads; a start that answers initialize loads none.
    const probe = join(folder, "initialize.jsonl");
    writeFileSync(
      probe,
      `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "probe", version: "0" } } })}\n`,
    );
    const { stdout, stderr } = await run("sh", ["-c", `exec "${process.execPath}" "${builtServer}" < "${probe}"`], {
      env: {
        PATH: process.env["PATH"] ?? "",
        NODE_DEBUG: "esm",
        XDG_CACHE_HOME: join(folder, "xdg-esm"),
        LOG_LEVEL: "warn",
        DATABASE_PATH: join(folder, "probe.db"),
      },
    });
    expect(JSON.parse(stdout.split("\n")[0] ?? "{}")).toMatchObject({
      id: 1,
      result: { protocolVersion: "2025-11-25" },
    });
    expect(stderr).not.toMatch(/^ESM \d+:/m);
  });

  // Node 22+ (module.enableCompileCache): the other modules a start loads from disk are compiled from a cache in
  // the user's cache folder; a folder that cannot be written leaves it off and changes nothing else.
  it.skipIf(nodeMajor < 22)("keeps Node's module compile cache in the user's cache folder (Node 22+)", async () => {
    const cacheHome = join(folder, "xdg");
    const env = { PATH: process.env["PATH"] ?? "", XDG_CACHE_HOME: cacheHome };
    await run(process.execPath, [builtServer, "--print-config", "claude-code"], { env });
    expect(readdirSync(join(cacheHome, "deliberate", "node-compile-cache")).length).toBeGreaterThan(0);
    const notAFolder = join(folder, "a-file");
    writeFileSync(notAFolder, "");
    const { stdout } = await run(process.execPath, [builtServer, "--print-config", "claude-code"], {
      env: { ...env, XDG_CACHE_HOME: notAFolder },
    });
    expect(stdout).toContain("claude mcp add");
    // An empty XDG_CACHE_HOME counts as unset (~/.cache), not as the working folder.
    const home = join(folder, "home");
    const workingFolder = join(folder, "cwd");
    mkdirSync(workingFolder, { recursive: true });
    await run(process.execPath, [builtServer, "--print-config", "claude-code"], {
      cwd: workingFolder,
      env: { ...env, HOME: home, XDG_CACHE_HOME: "" },
    });
    expect(readdirSync(workingFolder)).toEqual([]);
    expect(readdirSync(join(home, ".cache", "deliberate", "node-compile-cache")).length).toBeGreaterThan(0);
  });
});
