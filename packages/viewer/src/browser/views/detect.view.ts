import { asArray, asString, facts, formatNumber, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

/** Bias and fallacy detection: each finding with severity, quoted evidence and remedy. */
registerView(
  "detect",
  (data) =>
    h(
      "div",
      {},
      asArray(data)
        .filter(isRecord)
        .map((thought) => {
          const metadata = isRecord(thought["metadata"]) ? thought["metadata"] : {};
          const detections = asArray(metadata["detections"]).filter(isRecord);
          return h(
            "article",
            { class: "detect", "data-thought-id": asString(thought["id"]) },
            facts([
              ["Looked for", asString(metadata["type"])],
              ["Overall quality", formatNumber(metadata["overall_quality"])],
            ]),
            detections.length === 0
              ? h("p", {}, "Nothing detected.")
              : h(
                  "ul",
                  { class: "detections" },
                  detections.map((detection) =>
                    h(
                      "li",
                      { class: `card severity-${asString(detection["severity"])}` },
                      h(
                        "h3",
                        {},
                        asString(detection["type"]),
                        " ",
                        h("span", { class: "badge" }, asString(detection["severity"])),
                      ),
                      h("blockquote", {}, asString(detection["evidence"])),
                      h("p", {}, asString(detection["explanation"])),
                      detection["remediation"]
                        ? h("p", { class: "muted" }, "Remedy: ", asString(detection["remediation"]))
                        : null,
                    ),
                  ),
                ),
          );
        }),
    ),
  { title: "Detected biases and fallacies", order: 58, select: (record) => thoughtsOfMode(record, "detect") },
);
