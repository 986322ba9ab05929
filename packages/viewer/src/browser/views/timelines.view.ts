import { diagramFrame, drawDiagram } from "../diagram.ts";
import { asArray, asString, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

/** Timelines: branches forking from their parent (fork points) and merged into others. */
registerView(
  "timelines",
  (data, context) => {
    const timelines = asArray(data).filter(isRecord);
    const merges = thoughtsOfMode(context.record, "timeline")
      .map((thought) => (isRecord(thought["metadata"]) ? thought["metadata"] : {}))
      .filter((metadata) => typeof metadata["source_branch_id"] === "string");
    return h(
      "div",
      {},
      timelines.map((timeline) => {
        const branches = asArray(timeline["branches"]).filter(isRecord);
        const childCount = new Map<string, number>();
        for (const branch of branches) {
          const parent = asString(branch["parent_branch_id"]);
          if (parent) childCount.set(parent, (childCount.get(parent) ?? 0) + 1);
        }
        const current = asString(timeline["current_branch_id"]);
        const strategyOf = (source: string, target: string) =>
          asString(
            merges.find((merge) => merge["source_branch_id"] === source && merge["target_branch_id"] === target)?.[
              "merge_strategy"
            ],
          );
        const svg = drawDiagram({
          direction: "LR",
          label: `Timeline ${asString(timeline["id"])} with ${branches.length} branches`,
          nodes: branches.map((branch) => {
            const id = asString(branch["id"]);
            const forks = childCount.get(id) ?? 0;
            const merged = branch["status"] === "merged";
            const notes = [
              forks > 0 ? `fork point: ${forks} ${forks === 1 ? "branch" : "branches"}` : "",
              merged ? "merged" : "",
              id === current ? "current" : "",
            ].filter(Boolean);
            return {
              id,
              title: asString(branch["label"], id),
              lines: [asString(branch["content"]), notes.join(" · ") || asString(branch["status"])],
              description: `${asString(branch["label"])}: ${asString(branch["content"])}${notes.length ? ` (${notes.join(", ")})` : ""}`,
              className:
                `${forks > 0 ? "is-fork" : ""}${merged ? " status-merged" : ""}${id === current ? " is-focus" : ""}`.trim(),
            };
          }),
          edges: [
            ...branches
              .filter((branch) => branch["parent_branch_id"])
              .map((branch) => ({
                from: asString(branch["parent_branch_id"]),
                to: asString(branch["id"]),
                label: "fork",
                className: "edge-fork",
              })),
            ...branches
              .filter((branch) => branch["merged_into_id"])
              .map((branch) => {
                const strategy = strategyOf(asString(branch["id"]), asString(branch["merged_into_id"]));
                return {
                  from: asString(branch["id"]),
                  to: asString(branch["merged_into_id"]),
                  label: strategy ? `merge (${strategy})` : "merge",
                  className: "edge-merge",
                };
              }),
          ],
        });
        return h(
          "div",
          { class: "timeline", "data-timeline-id": asString(timeline["id"]) },
          h("h3", {}, `Timeline ${asString(timeline["id"])}`),
          diagramFrame(svg, [
            ["edge-fork", "fork"],
            ["edge-merge", "merge"],
            ["is-fork", "fork point"],
            ["is-focus", "current branch"],
          ]),
        );
      }),
    );
  },
  { title: "Timelines", order: 30 },
);
