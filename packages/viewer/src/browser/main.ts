import "virtual:views";
import { RequestFailed, TokenNeeded, type ViewerConfig } from "./api.ts";
import { h, replaceChildren } from "./dom.ts";
import { renderListPage } from "./list-page.ts";
import { renderSessionPage } from "./session-page.ts";
import { renderAccount, showTokenForm } from "./token-form.ts";

function readConfig(): ViewerConfig {
  const element = document.getElementById("viewer-config");
  const parsed = JSON.parse(element?.textContent ?? "{}") as Partial<ViewerConfig>;
  return {
    base: parsed.base ?? "/ui",
    tokenRequired: parsed.tokenRequired ?? false,
    filterOptions: parsed.filterOptions ?? {},
    pageSize: parsed.pageSize ?? 25,
  };
}

async function start(): Promise<void> {
  const config = readConfig();
  const main = document.getElementById("main") as HTMLElement;
  const relative = location.pathname.slice(config.base.length);
  const match = /^\/sessions\/([^/]+)$/.exec(relative);
  const load = async (): Promise<void> => {
    document.body.dataset["state"] = "loading";
    try {
      if (match)
        await renderSessionPage(config, main, decodeURIComponent(match[1] as string), (problem) =>
          showTokenForm(main, problem, () => void load()),
        );
      else {
        await renderListPage(config, main);
        document.body.dataset["state"] = "ready";
      }
    } catch (error) {
      if (error instanceof TokenNeeded) {
        showTokenForm(main, error, () => void load());
        document.body.dataset["state"] = "token";
        return;
      }
      const message = error instanceof RequestFailed || error instanceof Error ? error.message : String(error);
      replaceChildren(
        main,
        h("h1", {}, error instanceof RequestFailed && error.status === 404 ? "Not found" : "Something went wrong"),
        h("p", { class: "error", role: "alert" }, message),
        h("p", {}, h("a", { href: config.base }, "All sessions")),
      );
      document.body.dataset["state"] = "error";
    }
  };
  renderAccount(() => void load());
  await load();
}

void start();
