/// <reference lib="dom" />
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

/**
 * A test host page built on ext-apps' host bridge (as Claude, VS Code or
 * ChatGPT host a view): the view's document runs in a sandboxed iframe, its
 * requests to the server go through `hostCall` (the test's MCP client, over
 * stdio or HTTP), and the tool result is sent to it once it has initialised.
 */
declare global {
  interface Window {
    hostCall(method: string, params: unknown): Promise<never>;
    showView(html: string, toolResult: unknown): Promise<void>;
  }
}

window.showView = async (html, toolResult) => {
  document.body.replaceChildren();
  const iframe = document.createElement("iframe");
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = "view";
  iframe.style.width = "960px";
  iframe.style.height = "900px";
  document.body.append(iframe);
  const view = iframe.contentWindow as Window;
  const bridge = new AppBridge(
    null,
    { name: "deliberate-test-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
  );
  bridge.onreadresource = (params) => window.hostCall("resources/read", params);
  bridge.oncalltool = (params) => window.hostCall("tools/call", params);
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  // Connected before the document loads, so the view's first message is heard.
  await bridge.connect(new PostMessageTransport(view, view));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolResult(toolResult as Parameters<typeof bridge.sendToolResult>[0]);
};
