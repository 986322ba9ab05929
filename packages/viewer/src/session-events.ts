import { errorCodeOf, securityHeaders } from "./viewer-responses.ts";

/** How a session's event stream watches it: its current version, polled every `pollIntervalMs`. */
export interface SessionWatch {
  versionOf(sessionId: string): Promise<{ version: string }>;
  pollIntervalMs: number;
  /** A comment line goes out when nothing was written for this long (keeps proxies from closing the stream). */
  heartbeatMs: number;
}

/**
 * Server-sent events of one session: its version on connect (or `unchanged` when Last-Event-ID matches),
 * then each new version; a failure event on a read error, and the end when the session is gone.
 */
export async function sessionEvents(request: Request, sessionId: string, watch: SessionWatch): Promise<Response> {
  const { versionOf, pollIntervalMs, heartbeatMs } = watch;
  // Fails with NOT_FOUND before the stream opens.
  let current = await versionOf(sessionId);
  const known = request.headers.get("last-event-id");
  const encoder = new TextEncoder();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
  };
  request.signal?.addEventListener("abort", stop, { once: true });

  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let lastWrite = Date.now();
      const write = (text: string) => {
        if (stopped) return;
        try {
          controller.enqueue(encoder.encode(text));
          lastWrite = Date.now();
        } catch {
          stop();
        }
      };
      // A change is announced by its version only: the page reads the session again in pages
      // (a large session is never pushed whole).
      const push = async (version: string) => {
        write(`id: ${version}\nevent: session\ndata: ${JSON.stringify({ version })}\n\n`);
      };
      const tick = async () => {
        if (stopped) return;
        try {
          const next = await versionOf(sessionId);
          if (next.version !== current.version) {
            current = next;
            await push(next.version);
          } else if (Date.now() - lastWrite >= heartbeatMs) {
            write(": keep-alive\n\n");
          }
        } catch (error) {
          write(
            `event: failure\ndata: ${JSON.stringify({ code: errorCodeOf(error) ?? "INTERNAL", message: "The session could not be read." })}\n\n`,
          );
          if (errorCodeOf(error) === "NOT_FOUND") {
            stop();
            controller.close();
            return;
          }
        }
        if (!stopped) timer = setTimeout(tick, pollIntervalMs);
      };
      write(`retry: 3000\n: stream of ${sessionId}\n\n`);
      const start = async () => {
        if (known !== current.version) await push(current.version);
        else write(`id: ${current.version}\nevent: unchanged\ndata: {}\n\n`);
        timer = setTimeout(tick, pollIntervalMs);
      };
      start().catch(() => stop());
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      ...securityHeaders,
    },
  });
}
