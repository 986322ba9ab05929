import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCallbackReceiver } from "./support/callback-receiver.ts";
import { eventually, startService, type RunningService } from "./support/service-harness.ts";

const run = promisify(execFile);
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const examples = [...readme.matchAll(/```bash\n([\s\S]*?)```/g)].map((match) => (match[1] as string).trim());
const hasCurl = await run("curl", ["--version"]).then(
  () => true,
  () => false,
);

let running: RunningService;
let receiver: Awaited<ReturnType<typeof startCallbackReceiver>>;
beforeAll(async () => {
  receiver = await startCallbackReceiver();
  // As the README starts it for the async examples: loopback callbacks allowed, no model.
  running = await startService({ REASONING_CALLBACK_ALLOWLIST: "127.0.0.1" });
});
afterAll(async () => {
  await running.stop();
  await receiver.close();
});

describe.skipIf(!hasCurl)("README curl examples", () => {
  it("has examples to run", () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect(examples.every((example) => example.includes("curl"))).toBe(true);
  });

  it.each(examples.map((example, index) => [index, example] as const))(
    "example %i works as written",
    async (_index, example) => {
      const script = example
        .replaceAll("http://127.0.0.1:9000", running.url)
        .replaceAll("http://127.0.0.1:9001", receiver.url);
      const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script], { timeout: 15_000 });
      expect(stdout.trim()).not.toBe("");
      const isErrorExample = example.includes(`'{"goal_text": "x",}'`);
      if (isErrorExample) {
        expect(JSON.parse(stdout).error.code).toBe("INVALID_INPUT");
        return;
      }
      expect(stdout).not.toContain('"status":"error"');
      if (stdout.trim().startsWith("{")) expect(() => JSON.parse(stdout)).not.toThrow();
      if (example.includes("/agent_intent_async")) {
        const job = JSON.parse(stdout);
        expect(job.correlation_id).toBe("run-42");
        const callback = await eventually(
          () => receiver.received.find((entry) => entry.body?.job_id === job.job_id),
          30_000,
          "the README callback",
        );
        expect(callback.path).toBe("/callback");
      }
    },
  );
});
