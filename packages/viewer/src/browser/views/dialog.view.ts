import { lineChart } from "../charts.ts";
import { asArray, asNumber, asString, facts, formatNumber, formatTime, h, isRecord } from "../dom.ts";
import { registerView } from "../registry.ts";

/**
 * The dialog module's record (`{ session, iterations, exchanges, summaries }`, the
 * reviewer's score per iteration) in the view's shape (session fields at the top,
 * `quality` per iteration).
 */
function fromModuleRecord(data: Record<string, unknown>): Record<string, unknown> {
  if (!isRecord(data["session"])) return data;
  return {
    ...data["session"],
    exchanges: asArray(data["exchanges"]),
    iterations: asArray(data["iterations"])
      .filter(isRecord)
      .map((iteration) => ({ ...iteration, quality: iteration["quality"] ?? iteration["reviewer_score"] })),
  };
}

/** The dialog section may hold one transcript (the module's record), a list, or `{ dialogs: [...] }`. */
function transcripts(data: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(data)) return data.filter(isRecord).map(fromModuleRecord);
  if (isRecord(data) && Array.isArray(data["dialogs"])) return data["dialogs"].filter(isRecord).map(fromModuleRecord);
  return isRecord(data) ? [fromModuleRecord(data)] : [];
}

/** Multi-agent dialog: the quality trajectory per iteration and the transcript grouped by iteration. */
registerView(
  "dialog",
  (data) =>
    h(
      "div",
      {},
      transcripts(data).map((dialog) => {
        const iterations = asArray(dialog["iterations"]).filter(isRecord);
        const exchanges = asArray(dialog["exchanges"]).filter(isRecord);
        const rounds = [...new Set(exchanges.map((exchange) => asNumber(exchange["iteration"]) ?? 0))].sort(
          (a, b) => a - b,
        );
        const threshold = asNumber(dialog["quality_threshold"]);
        return h(
          "article",
          { class: "dialog", "data-dialog-id": asString(dialog["id"]) },
          h("h3", {}, asString(dialog["topic"], "Dialog")),
          facts([
            ["Status", asString(dialog["status"])],
            [
              "Agents",
              asArray(dialog["agents"])
                .filter(isRecord)
                .map((agent) => `${asString(agent["name"])}${agent["role"] ? ` (${asString(agent["role"])})` : ""}`)
                .join(", ") || undefined,
            ],
            [
              "Iterations",
              `${iterations.length}${dialog["max_iterations"] !== undefined && dialog["max_iterations"] !== null ? ` of at most ${asString(dialog["max_iterations"])}` : ""}`,
            ],
            ["Quality threshold", threshold !== undefined ? formatNumber(threshold) : undefined],
          ]),
          iterations.length > 0
            ? lineChart({
                points: iterations.map((iteration) => ({
                  label: `iteration ${asNumber(iteration["iteration"]) ?? 0}`,
                  value: asNumber(iteration["quality"]) ?? null,
                })),
                threshold: threshold ?? null,
                label: `Quality trajectory over ${iterations.length} iterations`,
                className: "quality-chart",
              })
            : null,
          rounds.map((round) =>
            h(
              "section",
              { class: "dialog-round", "aria-label": `Iteration ${round}` },
              h("h4", {}, `Iteration ${round}`),
              h(
                "ol",
                { class: "transcript" },
                exchanges
                  .filter((exchange) => (asNumber(exchange["iteration"]) ?? 0) === round)
                  .map((exchange) => {
                    const quality = asNumber(exchange["quality"]);
                    return h(
                      "li",
                      {
                        class: `exchange agent-${asString(exchange["agent"]).replace(/[^a-z0-9_-]/gi, "")}`,
                        "data-agent": asString(exchange["agent"]),
                      },
                      h(
                        "div",
                        { class: "thought-meta" },
                        h("strong", {}, asString(exchange["agent"])),
                        exchange["role"] ? h("span", { class: "muted" }, asString(exchange["role"])) : null,
                        quality !== undefined
                          ? h("span", { class: "badge" }, `quality ${formatNumber(quality)}`)
                          : null,
                        exchange["input_tokens"] !== undefined
                          ? h(
                              "span",
                              { class: "muted" },
                              `${asString(exchange["input_tokens"])} in / ${asString(exchange["output_tokens"])} out tokens`,
                            )
                          : null,
                        exchange["created_at"]
                          ? h("time", { class: "muted" }, formatTime(exchange["created_at"]))
                          : null,
                      ),
                      h("p", { class: "content" }, asString(exchange["content"])),
                    );
                  }),
              ),
            ),
          ),
          dialog["result"]
            ? h(
                "div",
                { class: "synthesis" },
                h("h4", {}, "Result"),
                h("p", { class: "content" }, asString(dialog["result"])),
              )
            : null,
        );
      }),
    ),
  { title: "Dialog", order: 10 },
);
