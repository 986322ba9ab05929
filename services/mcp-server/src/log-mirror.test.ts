import { AsyncLocalStorage } from "node:async_hooks";
import { LOG_LEVEL_META_KEY, McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createLogMirror } from "./log-mirror.ts";

/** A request's context as the SDK hands it to a handler: its envelope and how to notify its client. */
function requestContext(envelope?: Record<string, unknown>) {
  const notify = vi.fn(async (_notification: unknown) => {});
  return { context: { mcpReq: { envelope, notify } } as unknown as ServerContext, notify };
}

const line = (level: string, message: string) => `${JSON.stringify({ level, message })}\n`;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("createLogMirror", () => {
  it("runs the request of a client that asked for no lines outside AsyncLocalStorage, and sends it none", async () => {
    const mirror = createLogMirror();
    const during = mirror.attach(new McpServer({ name: "test", version: "0" }));
    const run = vi.spyOn(AsyncLocalStorage.prototype, "run");
    const { context, notify } = requestContext();
    const result = await during(context, async () => {
      mirror.sink(line("error", "something failed"));
      return 42;
    });
    expect(result).toBe(42);
    // On Node 20 the first run() hooks every promise the process makes from then on.
    expect(run).not.toHaveBeenCalled();
    expect(notify).not.toHaveBeenCalled();
    expect(mirror.listening()).toBe(false);
  });

  it("sends the lines of a request that carries a log level, at that level and above, to that request's client only", async () => {
    const mirror = createLogMirror();
    const during = mirror.attach(new McpServer({ name: "test", version: "0" }));
    const asking = requestContext({ [LOG_LEVEL_META_KEY]: "info" });
    const silent = requestContext();
    await Promise.all([
      during(asking.context, async () => {
        await Promise.resolve();
        mirror.sink(line("debug", "below the level"));
        mirror.sink(line("warn", "a warning"));
      }),
      during(silent.context, async () => {
        await Promise.resolve();
        mirror.sink(line("error", "not for the asking client"));
      }),
    ]);
    expect(asking.notify.mock.calls.map(([notification]) => notification)).toEqual([
      {
        method: "notifications/message",
        params: { level: "warning", logger: "deliberate", data: { level: "warn", message: "a warning" } },
      },
    ]);
    expect(silent.notify).not.toHaveBeenCalled();
  });
});
