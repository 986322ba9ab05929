import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const directory = fileURLToPath(new URL("../test-output/bundled-service/", import.meta.url));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("bundled into a service", () => {
  it("still finds the browser files through the package (as a tsup-built service does)", async () => {
    mkdirSync(directory, { recursive: true });
    const entry = `${directory}entry.ts`;
    writeFileSync(
      entry,
      [
        'import { createViewerRoutes } from "../../src/viewer-routes.ts";',
        "const viewer = createViewerRoutes({ listSessions: async () => [], readSession: async () => { throw new Error('unused'); }, listInvocations: async () => [] });",
        'const script = await viewer(new Request("http://service.test/ui/assets/viewer.js"));',
        'const page = await viewer(new Request("http://service.test/ui"));',
        "console.log(JSON.stringify({ script: script?.status, bytes: (await script?.text())?.length, page: (await page?.text())?.includes('/ui/assets/viewer.css') }));",
      ].join("\n"),
    );
    // Like the services' tsup config: the workspace package is bundled, so import.meta.url is the bundle's.
    await build({
      entryPoints: [entry],
      outfile: `${directory}dist/main.js`,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      logLevel: "warning",
    });
    const output = execFileSync(process.execPath, [`${directory}dist/main.js`], { encoding: "utf8" });
    const result = JSON.parse(output.trim());
    expect(result.script).toBe(200);
    expect(result.bytes).toBeGreaterThan(10_000);
    expect(result.page).toBe(true);
  });
});
