import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningService, startService, temporaryDirectory } from "./support/service-harness.ts";

describe("rate limits shared by replicas", () => {
  const running: RunningService[] = [];
  const cleanups: Array<() => void> = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.stop()));
    for (const cleanup of cleanups.splice(0)) cleanup();
  });

  async function replicas(env: Record<string, string>): Promise<[RunningService, RunningService]> {
    const directory = temporaryDirectory();
    cleanups.push(() => directory.remove());
    const shared = {
      DATABASE_PATH: join(directory.path, "shared.db"),
      REASONING_API_RATE_LIMIT: "5",
      REASONING_API_RATE_WINDOW_MS: "3600000",
      REASONING_QUEUE_WORKER: "0",
      ...env,
    };
    const first = await startService(shared);
    running.push(first);
    const second = await startService(shared);
    running.push(second);
    return [first, second];
  }

  async function statuses(services: readonly RunningService[], count: number): Promise<number[]> {
    const seen: number[] = [];
    for (let index = 0; index < count; index += 1) {
      const response = await fetch(`${services[index % services.length]?.url}/v1/tools`);
      await response.arrayBuffer();
      seen.push(response.status);
    }
    return seen;
  }

  it("counts a client's requests to every replica against one limit with the database store", async () => {
    const pair = await replicas({ REASONING_API_RATE_LIMIT_STORE: "database" });
    expect(await statuses(pair, 7)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const refused = await fetch(`${pair[0].url}/v1/tools`);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
  });

  it("counts per process with the memory store", async () => {
    const pair = await replicas({ REASONING_API_RATE_LIMIT_STORE: "memory" });
    expect(await statuses(pair, 10)).toEqual(Array.from({ length: 10 }, () => 200));
    expect(await statuses([pair[0]], 1)).toEqual([429]);
  });
});
