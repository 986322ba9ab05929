import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, inject, it } from "vitest";
import { readFinalStage } from "./support/dockerfile.ts";
import { repositoryRoot } from "./support/global-setup.ts";
import { startLogged, stop, userEnvironment } from "./support/user-processes.ts";

// Docker cannot build here (no engine, no base images): this runs what each image runs — its ENTRYPOINT
// and CMD with its ENV, /app being the folder where the same packed tarball was installed with npm, /data
// a folder of its own — and its HEALTHCHECK command against that process.

const run = promisify(execFile);
const installFolder = inject("installFolder");
const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
const services = [
  {
    name: "http-api",
    portVariable: "PORT",
    token: { REASONING_API_TOKEN: "container-secret" },
    ready: (entry: Record<string, unknown>) => entry["message"] === "deliberate-api listening",
  },
  {
    name: "mcp-server",
    portVariable: "MCP_HTTP_PORT",
    token: { MCP_HTTP_TOKEN: "container-secret" },
    ready: (entry: Record<string, unknown>) => String(entry["message"]).startsWith("MCP over Streamable HTTP at"),
  },
];

describe.each(services)("services/$name/Dockerfile", (service) => {
  const stage = readFinalStage(join(repositoryRoot, "services", service.name, "Dockerfile"));

  it("is multi-stage, installs the packed tarball without dev dependencies, runs as a non-root user with data on a volume", () => {
    expect(stage.stages).toBeGreaterThanOrEqual(2);
    expect(stage.runs.some((command) => command.includes(`pnpm --filter @deliberate/${service.name} pack`))).toBe(true);
    expect(stage.runs.some((command) => /npm install --omit=dev .*\.tgz/.test(command))).toBe(true);
    expect(stage.user).toBe("node");
    expect(stage.volumes).toEqual(["/data"]);
    expect(stage.env["DATABASE_PATH"]).toBe("/data/deliberate.db");
    expect(stage.entrypoint.slice(0, 2)).toEqual([
      "node",
      `/app/node_modules/@deliberate/${service.name}/dist/main.js`,
    ]);
    // The same variables as the README documents.
    for (const name of Object.keys(stage.env).filter((variable) => variable !== "NODE_ENV"))
      expect(readme).toContain(`\`${name}\``);
  });

  it("its ENTRYPOINT and CMD, with its ENV, serve from the installed package, and its HEALTHCHECK passes (and fails once stopped)", async () => {
    const data = mkdtempSync(join(tmpdir(), `deliberate-container-${service.name}-`));
    folders.push(data);
    const port = String(await freePort());
    const imageEnv = Object.fromEntries(
      Object.entries(stage.env).map(([name, value]) => [name, value.replace(/^\/data\b/, data)]),
    );
    const env = userEnvironment({ home: data, extra: { ...imageEnv, [service.portVariable]: port, ...service.token } });
    const toHost = (word: string) => word.replace(/^\/app\//, `${installFolder}/`);
    const [command = "", ...args] = [...stage.entrypoint, ...stage.cmd].map(toHost);
    expect(command).toBe("node");
    const { child } = await startLogged({ command: process.execPath, args, cwd: data, env, ready: service.ready });
    const [checkCommand = "", ...checkArgs] = stage.healthcheck;
    expect(checkCommand).toBe("node");
    try {
      await expect(run(process.execPath, checkArgs, { env })).resolves.toBeDefined();
      expect(existsSync(join(data, "deliberate.db"))).toBe(true);
    } finally {
      await stop(child);
    }
    await expect(run(process.execPath, checkArgs, { env })).rejects.toMatchObject({ code: 1 });
  });
});

describe("services/http-api/compose.yaml", () => {
  const compose = readFileSync(join(repositoryRoot, "services", "http-api", "compose.yaml"), "utf8");

  it("runs two API replicas from the API's Dockerfile on one Postgres, with variables the README documents", () => {
    // Two replica services: api-1 with the build and api-2 merging it (`<<: *api`).
    expect(compose).toMatch(/^ {2}api-1: &api\n/m);
    expect(compose).toMatch(/^ {2}api-2:\n {4}<<: \*api\n/m);
    expect(compose).toContain("dockerfile: services/http-api/Dockerfile");
    expect(compose).toMatch(/image: postgres:17/);
    // Both replicas share one database, as in the README's "Several replicas on Postgres".
    expect(compose).toMatch(
      /DATABASE_URL: postgres:\/\/deliberate:\$\{POSTGRES_PASSWORD[^}]*\}@postgres:5432\/deliberate/,
    );
    const apiVariables = [...compose.matchAll(/^ {6}([A-Z][A-Z0-9_]+):/gm)]
      .map((match) => match[1] ?? "")
      .filter((name) => !name.startsWith("POSTGRES_"));
    expect(apiVariables).toEqual(
      expect.arrayContaining(["DATABASE_URL", "REASONING_API_TOKEN", "REASONING_API_ALLOWED_HOSTS"]),
    );
    const apiReadme = readFileSync(join(repositoryRoot, "services", "http-api", "README.md"), "utf8");
    for (const name of apiVariables) expect(`${readme}\n${apiReadme}`).toContain(name);
  });
});
