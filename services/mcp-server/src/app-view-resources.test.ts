import { appViews, appViewUri } from "@deliberate/viewer/app-views";
import { describe, expect, it } from "vitest";
import { createAppViewResources } from "./app-view-resources.ts";

const html = new Map(appViews.map((view) => [appViewUri(view), `<!doctype html><title>${view.name}</title>`]));
const documents = { uris: new Set(html.keys()), read: (uri: string) => html.get(uri) ?? "" };

describe("the in-chat views' resources", () => {
  it("offers only the views of served tools, each an MCP App document with a CSP asking for no domains", () => {
    const views = createAppViewResources(
      documents,
      new Set(["reasoning_decision", "run_reasoning_exchange", "reasoning_linear"]),
    );
    expect(views.list().map((resource) => resource.uri)).toEqual([
      "ui://deliberate/decision.html",
      "ui://deliberate/dialog.html",
    ]);
    expect(views.list().every((resource) => resource.mimeType === "text/html;profile=mcp-app")).toBe(true);
    const read = views.read("ui://deliberate/decision.html");
    expect(read).toMatchObject({
      mimeType: "text/html;profile=mcp-app",
      text: "<!doctype html><title>decision</title>",
      _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } },
    });
    // A view of a tool not served is not readable either.
    expect(views.read("ui://deliberate/graph.html")).toBeUndefined();
    expect(views.read("ui://deliberate/nothing.html")).toBeUndefined();
  });

  it("links a tool to its view under both the current and the older metadata key, and leaves other tools alone", () => {
    const views = createAppViewResources(documents, new Set(["reasoning_decision", "reasoning_linear"]));
    expect(views.toolMeta("reasoning_decision")).toEqual({
      ui: { resourceUri: "ui://deliberate/decision.html" },
      "ui/resourceUri": "ui://deliberate/decision.html",
    });
    expect(views.toolMeta("reasoning_linear")).toBeUndefined();
  });

  it("offers nothing for views whose document was not built", () => {
    const views = createAppViewResources({ uris: new Set(), read: () => "" }, new Set(["reasoning_decision"]));
    expect(views.list()).toEqual([]);
    expect(views.toolMeta("reasoning_decision")).toBeUndefined();
  });
});
