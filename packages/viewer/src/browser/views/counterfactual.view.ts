import { diagramFrame, drawDiagram } from "../diagram.ts";
import { asArray, asNumber, asString, formatChange, formatNumber, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

/** Counterfactual analysis: the causal DAG with the intervened variable, each variable's change and counterfactual value. */
registerView(
  "counterfactual",
  (data) =>
    h(
      "div",
      {},
      asArray(data)
        .filter(isRecord)
        .map((thought) => {
          const metadata = isRecord(thought["metadata"]) ? thought["metadata"] : {};
          const model = isRecord(metadata["causal_model"]) ? metadata["causal_model"] : {};
          const variables = asArray(model["variables"]).map((variable) => asString(variable));
          const relationships = asArray(model["relationships"]).filter(isRecord);
          const effects = new Map(
            asArray(metadata["effects"])
              .filter(isRecord)
              .map((effect) => [asString(effect["variable"]), effect]),
          );
          const observed = isRecord(metadata["observed"]) ? metadata["observed"] : {};
          const target = isRecord(metadata["intervention_target"]) ? metadata["intervention_target"] : {};
          const svg = drawDiagram({
            direction: "LR",
            nodeWidth: 190,
            label: `Causal model with ${variables.length} variables; intervention on ${asString(target["variable"], "?")}`,
            nodes: variables.map((variable) => {
              const effect = effects.get(variable);
              const change = asNumber(effect?.["change"]);
              const relation = asString(effect?.["relation"], "unaffected");
              const before = asNumber(observed[variable]);
              const lines = [
                relation === "intervened"
                  ? `do(${variable} ${formatChange(change ?? 0)})`
                  : change !== undefined
                    ? `change ${formatChange(change)}`
                    : "unchanged",
                before !== undefined ? `${formatNumber(before)} → ${formatNumber(before + (change ?? 0))}` : relation,
              ];
              return {
                id: variable,
                title: variable,
                lines,
                description: `${variable}: ${lines.join(", ")}`,
                className: `relation-${relation}`,
              };
            }),
            edges: relationships.map((relationship) => ({
              from: asString(relationship["cause"]),
              to: asString(relationship["effect"]),
              label: `${formatNumber(relationship["strength"])}${relationship["estimated"] === true ? "*" : ""}`,
              className: relationship["estimated"] === true ? "edge-estimated" : "",
            })),
          });
          return h(
            "article",
            { class: "counterfactual", "data-thought-id": asString(thought["id"]) },
            h("p", {}, h("strong", {}, "Scenario: "), asString(metadata["original_scenario"])),
            h(
              "p",
              {},
              h("strong", {}, "Intervention: "),
              asString(metadata["intervention_applied"]),
              ` (${asString(metadata["analysis_depth"], "intervention")})`,
            ),
            diagramFrame(svg, [
              ["relation-intervened", "intervened"],
              ["relation-descendant", "changes (descendant)"],
              ["relation-unaffected", "unchanged"],
            ]),
            h("p", { class: "content outcome" }, asString(thought["content"])),
            metadata["semantics"] ? h("p", { class: "muted" }, asString(metadata["semantics"])) : null,
          );
        }),
    ),
  { title: "Counterfactual", order: 55, select: (record) => thoughtsOfMode(record, "counterfactual") },
);
