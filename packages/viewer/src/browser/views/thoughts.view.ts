import { nodeCap } from "../diagram.ts";
import { asArray, asNumber, asString, bar, formatNumber, formatTime, h, isRecord } from "../dom.ts";
import { registerView } from "../registry.ts";

/** Linear thoughts in order, each with its confidence. */
registerView(
  "thoughts",
  (data, context) => {
    const thoughts = asArray(data).filter(isRecord);
    const { shown, control } = nodeCap({
      total: thoughts.length,
      state: context.state,
      key: "shown",
      step: 200,
      noun: "thoughts",
      rerender: context.rerender,
    });
    return h(
      "div",
      {},
      h(
        "ol",
        { class: "thoughts" },
        thoughts.slice(0, shown).map((thought, index) => {
          const confidence = asNumber(thought["confidence"]);
          const superseded = thought["status"] === "superseded";
          return h(
            "li",
            {
              class: `thought mode-${asString(thought["mode"])}${superseded ? " is-superseded" : ""}`,
              "data-thought-id": asString(thought["id"]),
            },
            h(
              "div",
              { class: "thought-meta" },
              h("span", { class: "step" }, `#${index + 1}`),
              h("span", { class: "badge" }, asString(thought["mode"], "thought")),
              superseded ? h("span", { class: "badge badge-muted" }, "superseded") : null,
              thought["branch_id"] ? h("span", { class: "muted" }, `branch ${asString(thought["branch_id"])}`) : null,
              h(
                "time",
                { class: "muted", datetime: asString(thought["created_at"]) },
                formatTime(thought["created_at"]),
              ),
            ),
            h("p", { class: "content" }, asString(thought["content"])),
            confidence !== undefined
              ? h(
                  "div",
                  { class: "confidence" },
                  h("span", { class: "confidence-label" }, `confidence ${formatNumber(confidence)}`),
                  bar(confidence, "bar-confidence"),
                )
              : null,
          );
        }),
      ),
      control,
    );
  },
  { title: "Thoughts", order: 70 },
);
