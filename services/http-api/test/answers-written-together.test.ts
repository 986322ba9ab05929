import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "./support/service-harness.ts";

// The dispatcher queues its answers and writes a turn's answers together when the turn's I/O ends
// (AnswerWriter). Over real connections: every request still gets its own answer, pipelined requests in
// order, and a client that leaves before its answer is written costs nobody else theirs.

const intent = JSON.stringify({ session_id: "s1", persona: {}, goal_text: "search project for TODOs" });

function rawRequest(port: number, requestId: string, path = "/agent_intent", body = intent): string {
  return [
    `POST ${path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    "Content-Type: application/json",
    `X-Request-Id: ${requestId}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
}

interface RawAnswer {
  status: number;
  requestId: string | undefined;
  body: string;
}

/** Reads `count` answers (Content-Length bodies) from a socket, in the order they arrive. */
function readAnswers(socket: Socket, count: number): Promise<RawAnswer[]> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const answers: RawAnswer[] = [];
    socket.on("error", reject);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString("latin1").split("\r\n");
        const header = (name: string) =>
          head
            .find((line) => line.toLowerCase().startsWith(`${name}:`))
            ?.slice(name.length + 1)
            .trim();
        const length = Number(header("content-length"));
        if (buffer.length < end + 4 + length) return;
        answers.push({
          status: Number(head[0]?.split(" ")[1]),
          requestId: header("x-request-id"),
          body: buffer.subarray(end + 4, end + 4 + length).toString("utf8"),
        });
        buffer = buffer.subarray(end + 4 + length);
        if (answers.length === count) return resolve(answers);
      }
    });
  });
}

describe("answers written together at the end of a turn", () => {
  let running: RunningService;
  let port: number;
  beforeAll(async () => {
    running = await startService({ REASONING_API_RATE_LIMIT: "0", LOG_LEVEL: "warn" });
    port = Number(new URL(running.url).port);
  }, 60_000);
  afterAll(() => running?.stop());

  it("answers pipelined requests on one connection in their order", async () => {
    const socket = connect(port, "127.0.0.1");
    const ids = ["pipe-1", "pipe-2", "pipe-3", "pipe-4"];
    const answers = readAnswers(socket, ids.length);
    socket.write(ids.map((id) => rawRequest(port, id)).join(""));
    const received = await answers;
    socket.destroy();
    expect(received.map((answer) => answer.requestId)).toEqual(ids);
    for (const answer of received) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ status: "ok", tool_name: "context.fts_search" });
    }
  });

  it("keeps request order on one connection when Hono answers a request between two direct ones", async () => {
    const socket = connect(port, "127.0.0.1");
    const answers = readAnswers(socket, 3);
    // A query string sends /healthz to Hono, which writes its answer as soon as it is ready.
    const throughHono = [
      `GET /healthz?probe=1 HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      "X-Request-Id: hono-2",
      "",
      "",
    ].join("\r\n");
    socket.write(rawRequest(port, "direct-1") + throughHono + rawRequest(port, "direct-3"));
    const received = await answers;
    socket.destroy();
    expect(received.map((answer) => answer.requestId)).toEqual(["direct-1", "hono-2", "direct-3"]);
    expect(received.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(JSON.parse(received[1]?.body ?? "{}")).toMatchObject({ status: "ok" });
  });

  it("gives each of many concurrent requests its own answer", async () => {
    const ids = Array.from({ length: 40 }, (_, index) => `concurrent-${index}`);
    const answers = await Promise.all(
      ids.map(async (id) => {
        const response = await fetch(`${running.url}/agent_intent`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-request-id": id },
          body: intent,
        });
        return {
          status: response.status,
          requestId: response.headers.get("x-request-id"),
          body: await response.json(),
        };
      }),
    );
    expect(answers.map((answer) => answer.requestId)).toEqual(ids);
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: "ok" });
    }
  });

  it("keeps answering others when a client leaves before its answer is written", async () => {
    const leaving = Array.from({ length: 10 }, (_, index) => {
      const socket = connect(port, "127.0.0.1");
      socket.write(rawRequest(port, `leaving-${index}`));
      socket.destroy();
      return socket;
    });
    const staying = connect(port, "127.0.0.1");
    const answers = readAnswers(staying, 1);
    staying.write(rawRequest(port, "staying"));
    const [answer] = await answers;
    staying.destroy();
    expect(leaving.every((socket) => socket.destroyed)).toBe(true);
    expect(answer?.status).toBe(200);
    expect(answer?.requestId).toBe("staying");
  });

  it("answers a client that half-closes after its pipelined requests (answers made before its FIN is read)", async () => {
    // The client sends its requests and shuts its side (FIN), as `nc -N` or a one-shot client does. A model-free
    // intent's answer is made in the I/O phase that read the request, so it is queued (not yet written) when the
    // next phase reads the FIN; by default node ended the connection then and the queued answers were lost. (A
    // request still running when the FIN is read is cancelled, as for any client that leaves: see client-ends.test.ts.)
    {
      const path = "/agent_intent";
      const ids = ["half-1", "half-2"];
      const socket = connect(port, "127.0.0.1");
      const answers = readAnswers(socket, ids.length);
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.end(ids.map((id) => rawRequest(port, id, path, intent)).join(""));
      const received = await Promise.race([answers, closed.then(() => [] as RawAnswer[])]);
      socket.destroy();
      expect({ path, answers: received.map((answer) => [answer.requestId, answer.status]) }).toEqual({
        path,
        answers: ids.map((id) => [id, 200]),
      });
    }
  });
});
