import { formatNumber, formatTime, h } from "../dom.ts";
import { registerView } from "../registry.ts";

/** Per-session invocations: latency, tokens, model. */
registerView(
  "invocations",
  (_data, context) => {
    const rows = context.invocations;
    if (rows.length === 0) return null;
    const slowest = Math.max(...rows.map((row) => row.latency_ms), 1);
    const sum = (pick: (row: (typeof rows)[number]) => number) => rows.reduce((total, row) => total + pick(row), 0);
    return h(
      "div",
      { class: "table-scroll", tabindex: 0, role: "region", "aria-label": "Invocations table" },
      h(
        "table",
        { class: "invocations" },
        h("caption", {}, `${rows.length} invocations`),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Time", "Tool", "Model", "Latency (ms)", "Tokens in", "Tokens out", "Model calls", "Result"].map((label) =>
              h("th", { scope: "col" }, label),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          rows.map((row) => {
            const fill = h("span", { class: "bar-fill" });
            fill.style.width = `${Math.round((row.latency_ms / slowest) * 1000) / 10}%`;
            return h(
              "tr",
              { "data-invocation-id": row.id, class: row.success ? "" : "is-failure" },
              h("td", {}, formatTime(row.created_at)),
              h("td", {}, row.tool, row.operation ? h("span", { class: "muted" }, ` ${row.operation}`) : null),
              h("td", {}, row.model ?? "—", row.provider ? h("span", { class: "muted" }, ` (${row.provider})`) : null),
              h(
                "td",
                { class: "number" },
                formatNumber(row.latency_ms, 1),
                h("span", { class: "bar bar-latency", "aria-hidden": "true" }, fill),
              ),
              h("td", { class: "number" }, String(row.input_tokens)),
              h("td", { class: "number" }, String(row.output_tokens)),
              h("td", { class: "number" }, String(row.model_calls)),
              h("td", {}, row.success ? "ok" : `failed: ${row.error_code ?? "error"}`),
            );
          }),
        ),
        h(
          "tfoot",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "row", colspan: 3 }, "Total"),
            h(
              "td",
              { class: "number" },
              formatNumber(
                sum((row) => row.latency_ms),
                1,
              ),
            ),
            h("td", { class: "number" }, String(sum((row) => row.input_tokens))),
            h("td", { class: "number" }, String(sum((row) => row.output_tokens))),
            h("td", { class: "number" }, String(sum((row) => row.model_calls))),
            h("td", {}, `${rows.filter((row) => !row.success).length} failed`),
          ),
        ),
      ),
    );
  },
  { title: "Invocations", order: 90, select: (_record, invocations) => invocations },
);
