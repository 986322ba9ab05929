import { createHash, timingSafeEqual } from "node:crypto";
import { defaultSessionPageSize, maxSessionPageSize, nulCharacterMessage, pageSessionRecord } from "@deliberate/contracts";
import { loadViewerAssets, type ViewerAssets } from "./viewer-assets.ts";
import type { ViewerDataSource, ViewerSessionQuery } from "./viewer-data.ts";

export interface ViewerRoutesOptions extends ViewerDataSource {
  /** Where the viewer is mounted (default `/ui`); no trailing slash. */
  basePath?: string;
  /**
   * The service's bearer token. When set, every data endpoint requires
   * `Authorization: Bearer <token>`; the page asks for it in a form and keeps
   * it in sessionStorage. Pages and assets hold no data and need no token.
   */
  token?: string;
  /** Values offered by the list page's filters; free-text fields when left out. */
  filterOptions?: { tools?: readonly string[]; kinds?: readonly string[] };
  /** How often the live stream checks a session for changes (default 1000 ms). */
  pollIntervalMs?: number;
  /** Comment lines keep idle streams open through proxies (default every 15 s). */
  heartbeatMs?: number;
  /** Directory of the built browser files (default: found next to the package). */
  assetsDirectory?: string;
  /** Sessions per list page (default 25, at most 200). */
  pageSize?: number;
  /** Called with unexpected errors (the response says only that the data could not be read). */
  onError?: (error: unknown) => void;
}

/** A fetch-style handler: a Response for the viewer's paths, undefined for every other path. */
export type ViewerHandler = (request: Request) => Promise<Response | undefined>;

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...securityHeaders, ...headers } });
}

function problem(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return json({ error: { code, message } }, status, headers);
}

/** 400 INVALID_INPUT naming the field (the message starts with it). */
function invalidInput(field: string, message: string): Response {
  return json({ error: { code: "INVALID_INPUT", message: `${field}: ${message}`, issues: [{ field, message }] } }, 400);
}

function errorCodeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}

function sameToken(given: string, expected: string): boolean {
  // Hash both so the comparison is constant-time whatever the lengths.
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

function bearerOf(request: Request): string | undefined {
  const header = request.headers.get("authorization") ?? "";
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim();
}

function normalizeBase(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, "");
  // The base is written into the page's HTML, so only plain path characters are allowed.
  if (!/^\/[A-Za-z0-9._~/-]+$/.test(trimmed)) throw new Error(`basePath must be a path like /ui (letters, digits, . _ ~ - /): ${basePath}`);
  return trimmed;
}

/** A `?name=` integer from 0 to `max` (the fallback when absent), or the 400 naming it. */
function integerParameter(url: URL, name: string, fallback: number, max: number): number | Response {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > max) return problem(400, "INVALID_INPUT", `${name} must be an integer from 0 to ${max}`);
  return value;
}

function parseQuery(url: URL, pageSize: number): ViewerSessionQuery | Response {
  const limit = integerParameter(url, "limit", pageSize, 200);
  if (limit instanceof Response) return limit;
  const offset = integerParameter(url, "offset", 0, 1_000_000);
  if (offset instanceof Response) return offset;
  for (const name of ["tool", "kind", "search"]) {
    if (url.searchParams.get(name)?.includes("\0")) return invalidInput(name, nulCharacterMessage);
  }
  const text = (name: string) => {
    const value = url.searchParams.get(name)?.trim();
    return value === undefined || value === "" ? undefined : value.slice(0, 200);
  };
  const tool = text("tool");
  const kind = text("kind");
  const search = text("search");
  return { limit: Math.max(1, limit), offset, ...(tool ? { tool } : {}), ...(kind ? { kind } : {}), ...(search ? { search } : {}) };
}

/** How a session's event stream watches it: its current version, polled every `pollIntervalMs`. */
interface SessionWatch {
  versionOf(sessionId: string): Promise<{ version: string }>;
  pollIntervalMs: number;
  /** A comment line goes out when nothing was written for this long (keeps proxies from closing the stream). */
  heartbeatMs: number;
}

/**
 * Server-sent events of one session: its version on connect (or `unchanged` when Last-Event-ID matches),
 * then each new version; a failure event on a read error, and the end when the session is gone.
 */
async function sessionEvents(request: Request, sessionId: string, watch: SessionWatch): Promise<Response> {
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
          write(`event: failure\ndata: ${JSON.stringify({ code: errorCodeOf(error) ?? "INTERNAL", message: "The session could not be read." })}\n\n`);
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
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", connection: "keep-alive", "x-accel-buffering": "no", ...securityHeaders },
  });
}

/**
 * The viewer as a fetch-style handler: `GET <base>` (session list),
 * `GET <base>/sessions/<id>` (session page), `<base>/assets/*`, the JSON
 * endpoints under `<base>/api/` and the live stream
 * `<base>/api/sessions/<id>/events` (server-sent events over a normal GET, so
 * the page reads it with fetch and the Authorization header). Read-only:
 * any other method is 405. Paths outside the base resolve to undefined so the
 * service handles them.
 */
export function createViewerRoutes(options: ViewerRoutesOptions): ViewerHandler {
  const base = normalizeBase(options.basePath ?? "/ui");
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const pageSize = Math.min(200, Math.max(1, options.pageSize ?? 25));
  let assets: ViewerAssets | undefined;
  const assetsOf = () => {
    assets ??= loadViewerAssets(options.assetsDirectory);
    return assets;
  };

  function page(request: Request): Response {
    const built = assetsOf();
    const config = JSON.stringify({ base, tokenRequired: options.token !== undefined, filterOptions: options.filterOptions ?? {}, pageSize });
    const html = built.html
      .replaceAll("%BASE%", base)
      .replaceAll("%VERSION%", built.version)
      // Inert data block read by the script: JSON with '<' escaped can never close the element.
      .replace('"%CONFIG%"', () => config.replaceAll("<", "\\u003c"));
    const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache", "content-security-policy": contentSecurityPolicy, ...securityHeaders };
    return new Response(request.method === "HEAD" ? null : html, { headers });
  }

  function asset(request: Request, body: string, type: string): Response {
    const built = assetsOf();
    const etag = `"${built.version}"`;
    const headers = { "content-type": type, etag, "cache-control": "no-cache", ...securityHeaders };
    if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(request.method === "HEAD" ? null : body, { headers });
  }

  async function readAll(sessionId: string) {
    const [record, invocations] = await Promise.all([options.readSession(sessionId), options.listInvocations(sessionId)]);
    return { record, invocations };
  }

  function fingerprintOf(data: unknown): string {
    return createHash("sha256").update(JSON.stringify(data)).digest("hex").slice(0, 24);
  }

  /** The session's current version (a fingerprint of its data when the source keeps no version). */
  async function versionOf(sessionId: string): Promise<{ version: string }> {
    if (options.sessionVersion) return { version: `v-${await options.sessionVersion(sessionId)}` };
    return { version: fingerprintOf(await readAll(sessionId)) };
  }

  /**
   * One page of a session: every list of the record (thoughts, graph nodes…)
   * and the invocations cut to `?offset&limit` (100 by default, at most 1000),
   * as every other surface pages sessions; `page.next_offset` is the next page.
   */
  async function sessionJson(sessionId: string, url: URL): Promise<Response> {
    const limit = integerParameter(url, "limit", defaultSessionPageSize, maxSessionPageSize);
    if (limit instanceof Response) return limit;
    const offset = integerParameter(url, "offset", 0, Number.MAX_SAFE_INTEGER);
    if (offset instanceof Response) return offset;
    const data = await readAll(sessionId);
    const version = options.sessionVersion ? `v-${await options.sessionVersion(sessionId)}` : fingerprintOf(data);
    const { page, ...record } = pageSessionRecord(data.record, { offset, limit: Math.max(1, limit) });
    const { invocations, page: invocationPage } = pageSessionRecord({ invocations: data.invocations }, { offset, limit: Math.max(1, limit) });
    const totals = { ...page.totals, ...invocationPage.totals };
    const next = page.next_offset ?? invocationPage.next_offset;
    return json({ record, invocations, version, page: { ...page, totals, next_offset: next } });
  }

  async function api(request: Request, url: URL, rest: string): Promise<Response> {
    if (options.token !== undefined) {
      const given = bearerOf(request);
      if (given === undefined || !sameToken(given, options.token)) {
        return problem(401, "UNAUTHORIZED", given === undefined ? "This viewer needs the service's bearer token." : "The bearer token was refused.", {
          "www-authenticate": 'Bearer realm="deliberate-viewer"',
        });
      }
    }
    if (rest === "sessions") {
      const query = parseQuery(url, pageSize);
      if (query instanceof Response) return query;
      // One extra row tells whether there is a next page without a count query.
      const rows = await options.listSessions({ ...query, limit: query.limit + 1 });
      return json({ sessions: rows.slice(0, query.limit), offset: query.offset, limit: query.limit, has_more: rows.length > query.limit });
    }
    const match = /^sessions\/([^/]+)(\/events)?$/.exec(rest);
    if (match) {
      let sessionId: string;
      try {
        sessionId = decodeURIComponent(match[1] as string);
      } catch {
        return invalidInput("session_id", `'${match[1]}' is not valid percent-encoding (UTF-8 bytes as %XX)`);
      }
      if (sessionId.includes("\0")) return invalidInput("session_id", nulCharacterMessage);
      return match[2] === undefined ? sessionJson(sessionId, url) : sessionEvents(request, sessionId, { versionOf, pollIntervalMs, heartbeatMs });
    }
    return problem(404, "NOT_FOUND", `No viewer endpoint at ${url.pathname}`);
  }

  return async (request: Request): Promise<Response | undefined> => {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path !== base && !path.startsWith(`${base}/`)) return undefined;
    if (request.method !== "GET" && request.method !== "HEAD") {
      return problem(405, "METHOD_NOT_ALLOWED", "The viewer is read-only: only GET and HEAD.", { allow: "GET, HEAD" });
    }
    const rest = path.slice(base.length + 1);
    try {
      if (rest.startsWith("api/")) return await api(request, url, rest.slice("api/".length));
      if (rest === "" || rest === "sessions" || /^sessions\/[^/]+$/.test(rest)) return page(request);
      if (rest === "assets/viewer.js") return asset(request, assetsOf().script, "text/javascript; charset=utf-8");
      if (rest === "assets/viewer.css") return asset(request, assetsOf().style, "text/css; charset=utf-8");
      return problem(404, "NOT_FOUND", `Nothing at ${path}`);
    } catch (error) {
      const code = errorCodeOf(error);
      if (code === "NOT_FOUND") return problem(404, "NOT_FOUND", error instanceof Error ? error.message : "Not found");
      options.onError?.(error);
      return problem(500, "INTERNAL", "The viewer could not read the data.");
    }
  };
}
