import { nulCharacterMessage } from "@deliberate/contracts";
import { sessionEvents } from "./session-events.ts";
import { createSessionReader } from "./session-json.ts";
import type { ViewerDataSource } from "./viewer-data.ts";
import { bearerOf, sameToken } from "./viewer-auth.ts";
import { createViewerPages } from "./viewer-pages.ts";
import { parseQuery } from "./viewer-query.ts";
import { errorCodeOf, invalidInput, json, problem } from "./viewer-responses.ts";

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

function normalizeBase(basePath: string): string {
  const trimmed = basePath.replace(/\/+$/, "");
  // The base is written into the page's HTML, so only plain path characters are allowed.
  if (!/^\/[A-Za-z0-9._~/-]+$/.test(trimmed))
    throw new Error(`basePath must be a path like /ui (letters, digits, . _ ~ - /): ${basePath}`);
  return trimmed;
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
  const pages = createViewerPages({
    base,
    tokenRequired: options.token !== undefined,
    filterOptions: options.filterOptions ?? {},
    pageSize,
    assetsDirectory: options.assetsDirectory,
  });
  const { versionOf, sessionJson } = createSessionReader(options);

  async function api(request: Request, url: URL, rest: string): Promise<Response> {
    if (options.token !== undefined) {
      const given = bearerOf(request);
      if (given === undefined || !sameToken(given, options.token)) {
        return problem(
          401,
          "UNAUTHORIZED",
          given === undefined ? "This viewer needs the service's bearer token." : "The bearer token was refused.",
          {
            "www-authenticate": 'Bearer realm="deliberate-viewer"',
          },
        );
      }
    }
    if (rest === "sessions") {
      const query = parseQuery(url, pageSize);
      if (query instanceof Response) return query;
      // One extra row tells whether there is a next page without a count query.
      const rows = await options.listSessions({ ...query, limit: query.limit + 1 });
      return json({
        sessions: rows.slice(0, query.limit),
        offset: query.offset,
        limit: query.limit,
        has_more: rows.length > query.limit,
      });
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
      return match[2] === undefined
        ? sessionJson(sessionId, url)
        : sessionEvents(request, sessionId, { versionOf, pollIntervalMs, heartbeatMs });
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
      if (rest === "" || rest === "sessions" || /^sessions\/[^/]+$/.test(rest)) return pages.page(request);
      if (rest === "assets/viewer.js") return pages.script(request);
      if (rest === "assets/viewer.css") return pages.style(request);
      return problem(404, "NOT_FOUND", `Nothing at ${path}`);
    } catch (error) {
      const code = errorCodeOf(error);
      if (code === "NOT_FOUND") return problem(404, "NOT_FOUND", error instanceof Error ? error.message : "Not found");
      options.onError?.(error);
      return problem(500, "INTERNAL", "The viewer could not read the data.");
    }
  };
}
