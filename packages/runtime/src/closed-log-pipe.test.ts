import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const fixture = fileURLToPath(new URL("./fixtures/closed-pipe-service.ts", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** The next IPC message from the child. */
const nextMessage = async (child: ChildProcess) => (await once(child, "message"))[0];

describe("a service whose log pipes were closed by its parent", () => {
  it("drops its lines without reaching the fault guard, and still stops on SIGTERM (exit 0)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture], { stdio: ["ignore", "pipe", "pipe", "ipc"] });
    children.push(child);
    expect(await nextMessage(child)).toBe("ready");
    // The parent stops reading: the child's next writes fail with EPIPE.
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.send("log");
    expect(await nextMessage(child)).toBe("logged");
    child.send("log");
    expect(await nextMessage(child)).toBe("logged");
    const exited = once(child, "exit");
    const report = nextMessage(child);
    child.kill("SIGTERM");
    // Before the fix, each failed write reached the fault guard, whose warning failed the same way, over and over.
    expect(await report).toEqual({ guardReports: 0 });
    expect(await exited).toEqual([0, null]);
  }, 60_000);
});
