import { storedToken, storeToken, type TokenNeeded } from "./api.ts";
import { h, replaceChildren } from "./dom.ts";

/**
 * Asks for the bearer token in a form (a password field: not shown, not put
 * in the URL, kept in sessionStorage for this tab) and calls `retry` once it
 * is entered.
 */
export function showTokenForm(main: HTMLElement, problem: TokenNeeded, retry: () => void): void {
  const input = h("input", {
    id: "token-input",
    name: "token",
    type: "password",
    autocomplete: "current-password",
    required: true,
    spellcheck: "false",
  });
  const form = h(
    "form",
    {
      class: "token-form",
      "aria-labelledby": "token-heading",
      onsubmit: (event: Event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (value === "") return;
        storeToken(value);
        renderAccount(retry);
        retry();
      },
    },
    h("h1", { id: "token-heading" }, "Bearer token needed"),
    h(
      "p",
      {},
      "This service protects its sessions with a bearer token. Enter it to view them; it is kept for this tab only and sent in the Authorization header.",
    ),
    problem.refused
      ? h("p", { class: "error", role: "alert" }, "The token was refused. Check it and try again.")
      : null,
    h("label", { for: "token-input" }, "Token"),
    input,
    h("button", { type: "submit" }, "View sessions"),
  );
  if (problem.refused) storeToken(undefined);
  replaceChildren(main, form);
  renderAccount(retry);
  input.focus();
}

/** The header's "forget token" control, shown while a token is stored. */
export function renderAccount(afterForget: () => void): void {
  const account = document.getElementById("account");
  if (!account) return;
  if (storedToken() === undefined) {
    account.replaceChildren();
    return;
  }
  replaceChildren(
    account,
    h(
      "button",
      {
        type: "button",
        class: "forget-token",
        onclick: () => {
          storeToken(undefined);
          account.replaceChildren();
          afterForget();
        },
      },
      "Forget token",
    ),
  );
}
