import { lineChart, rankingBars } from "../charts.ts";
import { asArray, asNumber, asString, facts, formatNumber, h, isRecord } from "../dom.ts";
import { registerView, thoughtsOfMode } from "../registry.ts";

function probabilistic(metadata: Record<string, unknown>): HTMLElement {
  const steps = asArray(metadata["steps"]).filter(isRecord);
  const prior = asNumber(metadata["prior"]) ?? asNumber(steps[0]?.["prior"]) ?? null;
  const points = [
    { label: "prior", value: prior },
    ...steps.map((step, index) => ({ label: `E${index + 1}`, value: asNumber(step["posterior"]) ?? null })),
  ];
  const interval = isRecord(metadata["confidence_interval"]) ? metadata["confidence_interval"] : undefined;
  return h(
    "div",
    {},
    h(
      "p",
      { class: "hypothesis" },
      "Hypothesis: ",
      asString(isRecord(metadata["input"]) ? metadata["input"]["hypothesis"] : undefined, "—"),
    ),
    lineChart({
      points,
      label: `Belief in the hypothesis from prior ${formatNumber(prior)} to posterior ${formatNumber(metadata["posterior"])}`,
      className: "evidence-chart",
    }),
    facts([
      ["Prior", `${formatNumber(prior, 3)}${metadata["prior_estimated"] === true ? " (estimated)" : ""}`],
      ["Posterior", formatNumber(metadata["posterior"], 3)],
      ["Likelihood ratio", metadata["likelihood_ratio"] === null ? "∞" : formatNumber(metadata["likelihood_ratio"], 3)],
      [
        "Sensitivity interval",
        interval
          ? `${formatNumber(interval["lower"], 3)} – ${formatNumber(interval["upper"], 3)} (±${formatNumber(interval["delta"])})`
          : undefined,
      ],
      ["Entropy", metadata["entropy"] !== undefined ? `${formatNumber(metadata["entropy"], 3)} bits` : undefined],
    ]),
    h(
      "table",
      { class: "evidence-steps" },
      h("caption", {}, "Updates, one per item of evidence"),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          ["#", "Evidence", "P(E|H)", "P(E|¬H)", "LR", "Before", "After"].map((label) =>
            h("th", { scope: "col" }, label),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        steps.map((step, index) =>
          h(
            "tr",
            {},
            h("td", {}, `E${index + 1}`),
            h(
              "td",
              {},
              asString(step["content"]),
              step["estimated"] === true ? h("span", { class: "badge badge-muted" }, "estimated") : null,
            ),
            h("td", {}, formatNumber(step["likelihood_if_true"])),
            h("td", {}, formatNumber(step["likelihood_if_false"])),
            h("td", {}, step["likelihood_ratio"] === null ? "∞" : formatNumber(step["likelihood_ratio"])),
            h("td", {}, formatNumber(step["prior"], 3)),
            h("td", {}, formatNumber(step["posterior"], 3)),
          ),
        ),
      ),
    ),
  );
}

function assessment(metadata: Record<string, unknown>): HTMLElement {
  const items = asArray(metadata["evidence_assessments"]).filter(isRecord);
  return h(
    "div",
    {},
    facts([["Overall credibility", formatNumber(metadata["overall_credibility"], 3)]]),
    rankingBars(
      items.map((item, index) => ({
        label: `E${index + 1}: ${asString(item["content"])}`,
        value: asNumber(item["credibility_score"]) ?? 0,
        note: asString(item["source_tier"]),
      })),
      "Credibility of each item",
    ),
  );
}

/** Evidence: Bayesian updates drawn from prior to posterior, or credibility per item. */
registerView(
  "evidence",
  (data) =>
    h(
      "div",
      {},
      asArray(data)
        .filter(isRecord)
        .map((thought) => {
          const metadata = isRecord(thought["metadata"]) ? thought["metadata"] : {};
          return h(
            "article",
            { class: "evidence", "data-thought-id": asString(thought["id"]) },
            metadata["type"] === "probabilistic" ? probabilistic(metadata) : assessment(metadata),
            h("p", { class: "synthesis content" }, asString(thought["content"])),
          );
        }),
    ),
  { title: "Evidence", order: 50, select: (record) => thoughtsOfMode(record, "evidence") },
);
