/**
 * Talking to the service. The bearer token lives in sessionStorage and goes
 * out only in the Authorization header: never in a URL, so it cannot leak
 * through history, logs or Referer. The live stream is read with fetch (not
 * EventSource, which cannot send headers).
 */

const tokenKey = "deliberate-viewer-token";

export interface ViewerConfig {
  base: string;
  tokenRequired: boolean;
  filterOptions: { tools?: string[]; kinds?: string[] };
  pageSize: number;
}

/** The service asked for a token (none stored, or the stored one was refused). */
export class TokenNeeded extends Error {
  constructor(readonly refused: boolean) {
    super(refused ? "The bearer token was refused." : "This viewer needs the service's bearer token.");
  }
}

/** Any other failed request, with the service's error message. */
export class RequestFailed extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(tokenKey) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeToken(token: string | undefined): void {
  try {
    if (token === undefined) sessionStorage.removeItem(tokenKey);
    else sessionStorage.setItem(tokenKey, token);
  } catch {
    // Storage disabled: the token lasts until the page is left.
  }
}

function headers(accept: string, extra: Record<string, string> = {}): Headers {
  const result = new Headers({ accept, ...extra });
  const token = storedToken();
  if (token !== undefined) result.set("authorization", `Bearer ${token}`);
  return result;
}

async function failure(response: Response): Promise<Error> {
  if (response.status === 401) return new TokenNeeded(storedToken() !== undefined);
  let message = `The service answered ${response.status}.`;
  try {
    const body = (await response.json()) as { error?: { message?: string } };
    if (typeof body.error?.message === "string") message = body.error.message;
  } catch {
    // Not JSON: keep the status.
  }
  return new RequestFailed(response.status, message);
}

/** GET a JSON endpoint under `<base>/api/`. */
export async function getJson<T>(config: ViewerConfig, path: string, signal?: AbortSignal): Promise<T> {
  const response = await fetch(`${config.base}/api/${path}`, {
    headers: headers("application/json"),
    signal: signal ?? null,
    credentials: "same-origin",
  });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as T;
}

export interface StreamEvent {
  event: string;
  id?: string;
  data: string;
}

/**
 * Reads a server-sent-events stream with fetch until it ends or `signal`
 * aborts; calls `onEvent` per event. Resolves when the stream closes.
 */
export async function readEventStream(
  config: ViewerConfig,
  path: string,
  options: { lastEventId?: string; signal: AbortSignal; onOpen?: () => void; onEvent: (event: StreamEvent) => void },
): Promise<void> {
  const extra: Record<string, string> = options.lastEventId ? { "last-event-id": options.lastEventId } : {};
  const response = await fetch(`${config.base}/api/${path}`, {
    headers: headers("text/event-stream", extra),
    signal: options.signal,
    cache: "no-store",
    credentials: "same-origin",
  });
  if (!response.ok || response.body === null) throw await failure(response);
  options.onOpen?.();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let boundary = buffer.indexOf("\n\n");
    while (boundary !== -1) {
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      boundary = buffer.indexOf("\n\n");
      const event: StreamEvent = { event: "message", data: "" };
      const data: string[] = [];
      for (const line of block.split("\n")) {
        if (line.startsWith(":") || line === "") continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const content = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "event") event.event = content;
        else if (field === "id") event.id = content;
        else if (field === "data") data.push(content);
      }
      if (data.length === 0 && event.id === undefined) continue;
      event.data = data.join("\n");
      options.onEvent(event);
    }
  }
}
