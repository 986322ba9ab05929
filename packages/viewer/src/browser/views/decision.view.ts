import { rankingBars } from "../charts.ts";
import { asArray, asNumber, asString, formatNumber, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

function matrix(metadata: Record<string, unknown>): HTMLElement | null {
  const options = asArray(isRecord(metadata["input"]) ? metadata["input"]["options"] : undefined).map((option) =>
    asString(option),
  );
  const criteria = asArray(metadata["criteria"]).filter(isRecord);
  const scores = asArray(metadata["scores"]);
  if (options.length === 0 || criteria.length === 0 || scores.length !== options.length) return null;
  return h(
    "table",
    { class: "matrix" },
    h("caption", {}, "Decision matrix (scores as given; weights normalised)"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Option"),
        criteria.map((criterion) =>
          h(
            "th",
            { scope: "col" },
            asString(criterion["name"]),
            h(
              "span",
              { class: "muted" },
              ` (w ${formatNumber(criterion["weight"])}${criterion["direction"] === "cost" ? ", cost" : ""})`,
            ),
          ),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      options.map((option, row) =>
        h(
          "tr",
          {},
          h("th", { scope: "row" }, option),
          criteria.map((_, column) => h("td", {}, formatNumber(asArray(scores[row])[column], 2))),
        ),
      ),
    ),
  );
}

/** Decision analysis: the ranking as bars, the matrix and the rationale. */
registerView(
  "decision",
  (data) =>
    h(
      "div",
      {},
      asArray(data)
        .filter(isRecord)
        .map((thought) => {
          const metadata = isRecord(thought["metadata"]) ? thought["metadata"] : {};
          const question = asString(isRecord(metadata["input"]) ? metadata["input"]["question"] : undefined);
          const rankings = asArray(metadata["rankings"]).filter(isRecord);
          return h(
            "article",
            { class: "decision", "data-thought-id": asString(thought["id"]) },
            question ? h("h3", {}, question) : null,
            h("p", { class: "recommendation" }, asString(thought["content"])),
            h("p", { class: "muted" }, `Method: ${asString(metadata["type"], "decision")}`),
            rankings.length > 0
              ? rankingBars(
                  rankings.map((ranking) => ({
                    label: `${asNumber(ranking["rank"]) ?? "?"}. ${asString(ranking["option"])}`,
                    value: asNumber(ranking["score"]) ?? 0,
                    note: ranking["tied"] === true ? "tied" : undefined,
                    highlight: ranking["rank"] === 1,
                  })),
                  "Ranking",
                )
              : null,
            matrix(metadata),
            metadata["rationale"] ? h("p", { class: "rationale" }, asString(metadata["rationale"])) : null,
          );
        }),
    ),
  { title: "Decision", order: 45, select: (record) => thoughtsOfMode(record, "decision") },
);
