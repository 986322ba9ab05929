import { afterEach, describe, expect, it } from "vitest";
import { getJson, postJson, type RunningService, startService } from "./support/service-harness.ts";

describe("the session viewer at /ui", () => {
  let running: RunningService | undefined;
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it("serves its pages without the token but its data only with it, and is linked from /docs", async () => {
    running = await startService({ REASONING_API_TOKEN: "s3cret-token-value" });
    const auth = { authorization: "Bearer s3cret-token-value" };
    const page = await fetch(`${running.url}/ui`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await (await fetch(`${running.url}/docs`)).text()).toContain('href="ui"');

    const decided = await postJson(
      `${running.url}/v1/tools/reasoning_decision`,
      { options: ["A", "B"], criteria: [{ name: "cost", weight: 1 }], scores: [[3], [5]] },
      auth,
    );
    expect(decided.status).toBe(200);
    const sessionId = decided.json.session_id as string;

    expect((await getJson(`${running.url}/ui/api/sessions`)).status).toBe(401);
    const listed = await getJson(`${running.url}/ui/api/sessions?tool=reasoning_decision`, auth);
    expect(listed.json.sessions.map((session: { id: string }) => session.id)).toEqual([sessionId]);
    const record = await getJson(`${running.url}/ui/api/sessions/${sessionId}`, auth);
    expect(record.json.record.session.id).toBe(sessionId);
    expect(record.json.invocations.map((row: { tool: string }) => row.tool)).toEqual(["reasoning_decision"]);
  });

  it("throttles wrong tokens on its data endpoints like every route", async () => {
    running = await startService({
      REASONING_API_TOKEN: "s3cret-token-value",
      REASONING_API_AUTH_FAILURE_LIMIT: "2",
      REASONING_API_AUTH_FAILURE_WINDOW_MS: "60000",
    });
    const statuses: number[] = [];
    for (let index = 0; index < 4; index += 1)
      statuses.push(
        (await getJson(`${running.url}/ui/api/sessions`, { authorization: `Bearer wrong-${index}` })).status,
      );
    expect(statuses).toEqual([401, 401, 429, 429]);
    const right = await getJson(`${running.url}/ui/api/sessions`, { authorization: "Bearer s3cret-token-value" });
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await fetch(`${running.url}/ui`)).status).toBe(200);
  });
});
