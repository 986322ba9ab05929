import { asArray, asNumber, asString, bar, formatNumber, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

/** Divergent thinking: each perspective with its novelty, the challenged assumptions and the synthesis. */
registerView(
  "divergent",
  (data) =>
    h(
      "div",
      {},
      asArray(data)
        .filter(isRecord)
        .map((thought) => {
          const metadata = isRecord(thought["metadata"]) ? thought["metadata"] : {};
          const assumptions = asArray(metadata["challenged_assumptions"]).map((item) => asString(item));
          return h(
            "article",
            { class: "divergent", "data-thought-id": asString(thought["id"]) },
            h(
              "ul",
              { class: "perspectives" },
              asArray(metadata["perspectives"])
                .filter(isRecord)
                .map((perspective) => {
                  const novelty = asNumber(perspective["novelty_score"]);
                  return h(
                    "li",
                    { class: "perspective card" },
                    h("h3", {}, asString(perspective["viewpoint"], "Perspective")),
                    h("p", { class: "content" }, asString(perspective["content"])),
                    novelty !== undefined
                      ? h(
                          "div",
                          { class: "confidence" },
                          h("span", {}, `novelty ${formatNumber(novelty)}`),
                          bar(novelty, "bar-novelty"),
                        )
                      : null,
                  );
                }),
            ),
            assumptions.length > 0
              ? h(
                  "div",
                  {},
                  h("h3", {}, "Challenged assumptions"),
                  h(
                    "ul",
                    { class: "assumptions" },
                    assumptions.map((item) => h("li", {}, item)),
                  ),
                )
              : null,
            h(
              "div",
              { class: "synthesis" },
              h("h3", {}, "Synthesis"),
              h("p", { class: "content" }, asString(thought["content"])),
            ),
          );
        }),
    ),
  { title: "Divergent perspectives", order: 40, select: (record) => thoughtsOfMode(record, "divergent") },
);
