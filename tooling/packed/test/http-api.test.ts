import type { ChildProcess } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { commandLines, readmeBlock, words } from "./support/readme.ts";
import { freshHome, startLogged, stop, userEnvironment } from "./support/user-processes.ts";

const installFolder = inject("installFolder");
// Debian's Chromium driven by playwright-core, as the viewer's tests do (see packages/viewer/test/chromium.ts).
const headlessShell = "/usr/bin/chromium-headless-shell";
const chromiumPath = process.env["CHROMIUM_PATH"] ?? (existsSync(headlessShell) ? headlessShell : "/usr/bin/chromium");

describe("deliberate-api from the packed tarball, started by the README's command", () => {
  const home = freshHome();
  let child: ChildProcess | undefined;
  let url = "";
  let listening: Record<string, unknown> = {};

  beforeAll(async () => {
    const env = userEnvironment({ home, extra: { PORT: "0" } });
    const [line] = commandLines(readmeBlock("http-api"));
    const [command, ...args] = words(line ?? "", env);
    expect([command, ...args]).toEqual(["npx", "-y", "@deliberate/http-api"]);
    const started = await startLogged({
      command: command ?? "",
      args,
      cwd: installFolder,
      env,
      ready: (entry) => entry["message"] === "deliberate-api listening",
    });
    child = started.child;
    listening = started.entry;
    url = String(listening["url"]);
  });
  afterAll(async () => {
    if (child) await stop(child);
    rmSync(home, { recursive: true, force: true });
  });

  it("serves /healthz and /docs, advertises the viewer, and keeps its database in the user's data directory", async () => {
    expect(listening["viewer"]).toBe(`${url}/ui`);
    expect(listening["database"]).toBe(join(home, ".local", "share", "deliberate", "deliberate.db"));
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe("ok");
    const docs = await fetch(`${url}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain("/v1/tools/reasoning_decision");
    const openapi = await fetch(`${url}/openapi.json`);
    expect(((await openapi.json()) as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("renders a session page at /ui in Chromium from the viewer files inside the package", async () => {
    const decided = await fetch(`${url}/v1/tools/reasoning_decision`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        type: "weighted",
        question: "Which database?",
        options: ["Postgres", "SQLite"],
        criteria: [{ name: "scale", weight: 1 }],
        scores: [[9], [3]],
      }),
    });
    expect(decided.status).toBe(200);
    const body = (await decided.json()) as { session_id?: string; result?: { session_id?: string } };
    const sessionId = body.session_id ?? body.result?.session_id;
    expect(sessionId).toBeTypeOf("string");
    if (!existsSync(chromiumPath)) {
      throw new Error(
        `Chromium not found at ${chromiumPath}: install it with \`apt-get update && apt-get install -y chromium-headless-shell chromium\` (.ci/run does this), or set CHROMIUM_PATH.`,
      );
    }
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(error.message));
      await page.goto(`${url}/ui/sessions/${encodeURIComponent(sessionId ?? "")}`);
      await page.waitForSelector("body[data-state=ready]", { timeout: 60_000 });
      expect(await page.locator("#section-decision").textContent()).toContain("Postgres");
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
