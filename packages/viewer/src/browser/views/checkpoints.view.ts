import { asArray, asNumber, asString, formatTime, h, isRecord } from "../dom.ts";
import { registerView } from "../registry.ts";

/** Checkpoints: saved states along the session's thoughts, each placed at the thought count it saved. */
registerView(
  "checkpoints",
  (data, context) => {
    const checkpoints = asArray(data).filter(isRecord);
    const total = Math.max(
      1,
      asArray(context.record["thoughts"]).length,
      ...checkpoints.map((checkpoint) => asNumber(checkpoint["thought_count"]) ?? 0),
    );
    const track = h("div", { class: "checkpoint-track", "aria-hidden": "true" });
    for (const checkpoint of checkpoints) {
      const marker = h("span", { class: "checkpoint-marker" });
      marker.style.left = `${((asNumber(checkpoint["thought_count"]) ?? 0) / total) * 100}%`;
      track.append(marker);
    }
    return h(
      "div",
      {},
      track,
      h(
        "ol",
        { class: "checkpoints" },
        checkpoints.map((checkpoint) =>
          h(
            "li",
            { class: "checkpoint card", "data-checkpoint-id": asString(checkpoint["id"]) },
            h("h3", {}, asString(checkpoint["name"])),
            checkpoint["description"] ? h("p", {}, asString(checkpoint["description"])) : null,
            h(
              "p",
              { class: "muted" },
              `after ${asNumber(checkpoint["thought_count"]) ?? 0} of ${total} thoughts · ${formatTime(checkpoint["created_at"])}`,
            ),
          ),
        ),
      ),
    );
  },
  { title: "Checkpoints", order: 80 },
);
