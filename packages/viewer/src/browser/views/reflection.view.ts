import { lineChart } from "../charts.ts";
import { asArray, asNumber, asString, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

/** Reflection: quality per refinement iteration and the refined text. */
registerView(
  "reflection",
  (data) =>
    h(
      "div",
      {},
      asArray(data)
        .filter(isRecord)
        .map((thought) => {
          const metadata = isRecord(thought["metadata"]) ? thought["metadata"] : {};
          const scores = asArray(metadata["quality_by_iteration"]).map((score) => asNumber(score) ?? null);
          return h(
            "article",
            { class: "reflection", "data-thought-id": asString(thought["id"]) },
            scores.length > 0
              ? lineChart({
                  points: scores.map((value, index) => ({ label: `iteration ${index + 1}`, value })),
                  label: "Quality per reflection iteration",
                })
              : null,
            h("p", { class: "content" }, asString(thought["content"])),
          );
        }),
    ),
  { title: "Reflection", order: 60, select: (record) => thoughtsOfMode(record, "reflection") },
);
