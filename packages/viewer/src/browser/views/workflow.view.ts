import { asArray, asString, bar, h, isRecord } from "../dom.ts";
import { registerView } from "../registry.ts";

/** Guided-workflow progress: each run's steps as done, current or to do, with the answers given. */
registerView(
  "workflow",
  (data) => {
    if (!isRecord(data)) return null;
    const runs = asArray(data["runs"]).filter(isRecord);
    if (runs.length === 0) return null;
    return h(
      "div",
      {},
      runs.map((run) => {
        const steps = asArray(run["steps"]).filter(isRecord);
        const answers = isRecord(run["answers"]) ? run["answers"] : {};
        const complete = run["status"] === "complete";
        const done = steps.filter((step) => typeof answers[asString(step["save_as"])] === "string").length;
        return h(
          "article",
          { class: "workflow", "data-run-id": asString(run["id"]) },
          h("h3", {}, asString(run["title"], asString(run["workflow"]))),
          h(
            "div",
            { class: "confidence" },
            h("span", {}, `${done} of ${steps.length} steps done${complete ? " · complete" : ""}`),
            bar(steps.length === 0 ? 0 : done / steps.length, "bar-progress"),
          ),
          h(
            "ol",
            { class: "workflow-steps" },
            steps.map((step) => {
              const answer = answers[asString(step["save_as"])];
              const state =
                typeof answer === "string"
                  ? "done"
                  : !complete && run["current_step"] === step["id"]
                    ? "current"
                    : "todo";
              return h(
                "li",
                {
                  class: `workflow-step step-${state}`,
                  "data-step": asString(step["id"]),
                  "aria-current": state === "current" ? "step" : undefined,
                },
                h(
                  "span",
                  { class: "step-state" },
                  state === "done" ? "Done" : state === "current" ? "Current" : "To do",
                ),
                h("strong", {}, asString(step["title"])),
                step["expecting"] ? h("span", { class: "muted" }, ` — ${asString(step["expecting"])}`) : null,
                typeof answer === "string" ? h("p", { class: "content" }, answer) : null,
              );
            }),
          ),
        );
      }),
    );
  },
  { title: "Guided workflow", order: 5 },
);
