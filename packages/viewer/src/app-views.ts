import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { findViewerAssetsDirectory } from "./viewer-assets.ts";

/**
 * One in-chat view (MCP Apps): which of the viewer's section views it draws,
 * and the tools whose results it shows.
 */
export interface AppView {
  /** Path part of the view's `ui://deliberate/<name>.html` resource. */
  readonly name: string;
  readonly title: string;
  /** The session-page views it draws (their registered names). */
  readonly sections: readonly string[];
  /** The tools linked to it (`_meta.ui.resourceUri`). */
  readonly tools: readonly string[];
}

/** The views the viewer's drawing code offers inside a conversation. */
export const appViews: readonly AppView[] = [
  { name: "decision", title: "Decision", sections: ["decision"], tools: ["reasoning_decision"] },
  { name: "evidence", title: "Evidence", sections: ["evidence"], tools: ["reasoning_evidence"] },
  { name: "graph", title: "Graph of thoughts", sections: ["graph"], tools: ["reasoning_graph"] },
  { name: "timelines", title: "Timelines", sections: ["timelines"], tools: ["reasoning_timeline"] },
  { name: "mcts", title: "Monte Carlo tree search", sections: ["search_nodes"], tools: ["reasoning_mcts"] },
  {
    name: "counterfactual",
    title: "Counterfactual",
    sections: ["counterfactual"],
    tools: ["reasoning_counterfactual"],
  },
  {
    name: "knowledge-graph",
    title: "Knowledge graph",
    sections: ["knowledge_graph", "knowledgeGraph"],
    tools: ["reasoning_execute_task"],
  },
  {
    name: "dialog",
    title: "Dialog",
    sections: ["dialog"],
    tools: ["start_reasoning_session", "run_reasoning_exchange", "get_reasoning_result", "get_session_status"],
  },
];

/** The `ui://` URI of a view's HTML resource. */
export function appViewUri(view: AppView): string {
  return `ui://deliberate/${view.name}.html`;
}

/** Escapes text for an HTML attribute. */
function attribute(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
}

/** The views' documents: which exist, and each one's HTML (built on first read, then kept). */
export interface AppViewDocuments {
  readonly uris: ReadonlySet<string>;
  read(uri: string): string;
}

/**
 * Each view as one self-contained HTML document (script and style inline: the
 * host loads nothing else), by URI. The files are read on the first request
 * for a view, not at start-up. Undefined when the viewer's browser files are
 * not built (`pnpm --filter @deliberate/viewer build`).
 */
export function loadAppViewDocuments(
  directory: string | undefined = findViewerAssetsDirectory(),
): AppViewDocuments | undefined {
  if (directory === undefined || !existsSync(join(directory, "app.js"))) return undefined;
  const byUri = new Map(appViews.map((view) => [appViewUri(view), view]));
  let assets: { script: string; style: string } | undefined;
  const built = new Map<string, string>();
  return {
    uris: new Set(byUri.keys()),
    read(uri) {
      const view = byUri.get(uri);
      if (view === undefined) throw new Error(`No in-chat view at ${uri}`);
      // "</" inside the inline script or style would end the element early.
      assets ??= {
        script: readFileSync(join(directory, "app.js"), "utf8").replaceAll("</", "<\\/"),
        style: readFileSync(join(directory, "viewer.css"), "utf8").replaceAll("</", "<\\/"),
      };
      let html = built.get(uri);
      if (html === undefined) {
        html = viewDocument(view, assets);
        built.set(uri, html);
      }
      return html;
    },
  };
}

function viewDocument(view: AppView, assets: { script: string; style: string }): string {
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${attribute(view.title)} · Deliberate</title><style>${assets.style}</style></head>`,
    `<body class="app-view"><main id="main" data-views="${attribute(view.sections.join(","))}" data-title="${attribute(view.title)}"><p class="muted">Waiting for the result…</p></main>`,
    `<script>${assets.script}</script></body></html>`,
  ].join("\n");
}
