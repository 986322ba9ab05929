import { type AppViewDocuments, appViews, appViewUri } from "@deliberate/viewer/app-views";
import { RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from "@modelcontextprotocol/ext-apps/server";
import type { Resource } from "@modelcontextprotocol/server";

/**
 * The views load nothing from anywhere (script and style are inline) and
 * reach the server only through the host, so they ask for no domains at all.
 */
const viewResourceMeta = {
  ui: { csp: { connectDomains: [] as string[], resourceDomains: [] as string[] }, prefersBorder: true },
};

/** The in-chat views (MCP Apps) a server offers: their documents by `ui://` URI. */
export interface AppViewResources {
  /** The `ui://` resources of the views linked to a served tool. */
  list(): Resource[];
  /** A view's document, or undefined for a URI that is not one. */
  read(uri: string): { uri: string; mimeType: string; text: string; _meta: typeof viewResourceMeta } | undefined;
  /** The `_meta` a tool's listing carries when it has a view (`ui.resourceUri`, and the older `ui/resourceUri` key). */
  toolMeta(tool: string): Record<string, unknown> | undefined;
}

/**
 * The views for the tools served, from their built documents
 * (`loadAppViewDocuments`). Hosts without the MCP Apps extension ignore the
 * `_meta` and the `ui://` resources; tool results are the same either way.
 */
export function createAppViewResources(
  documents: AppViewDocuments,
  servedTools: ReadonlySet<string>,
): AppViewResources {
  const offered = appViews.filter(
    (view) => documents.uris.has(appViewUri(view)) && view.tools.some((tool) => servedTools.has(tool)),
  );
  const viewOfTool = new Map(
    offered.flatMap((view) =>
      view.tools.filter((tool) => servedTools.has(tool)).map((tool) => [tool, appViewUri(view)] as const),
    ),
  );
  const uris = new Set(offered.map(appViewUri));
  return {
    list: () =>
      offered.map((view) => ({
        uri: appViewUri(view),
        name: `view-${view.name}`,
        title: `${view.title} (in-chat view)`,
        description: `Draws the session of a ${view.tools.join(" / ")} result inside the conversation (MCP Apps)`,
        mimeType: RESOURCE_MIME_TYPE,
        _meta: viewResourceMeta,
      })),
    read: (uri) =>
      uris.has(uri)
        ? { uri, mimeType: RESOURCE_MIME_TYPE, text: documents.read(uri), _meta: viewResourceMeta }
        : undefined,
    toolMeta: (tool) => {
      const uri = viewOfTool.get(tool);
      return uri === undefined ? undefined : { ui: { resourceUri: uri }, [RESOURCE_URI_META_KEY]: uri };
    },
  };
}
