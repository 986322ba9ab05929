import { diagramFrame, drawDiagram, nodeCap } from "../diagram.ts";
import { asArray, asNumber, asString, formatNumber, h, isRecord } from "../dom.ts";
import { registerView } from "../registry.ts";

function provenanceOf(element: Record<string, unknown>): Record<string, unknown> {
  return isRecord(element["provenance"]) ? element["provenance"] : {};
}

function isDerived(element: Record<string, unknown>): boolean {
  const provenance = provenanceOf(element);
  return provenance["kind"] === "derived" || isRecord(provenance["derivation"]);
}

/**
 * The knowledge-graph module's section (`knowledgeGraph`: `{ entities, relations }`, paged like every list; formerly `{ graph: { entities, relations } }`,
 * relations by subject/object names with a `derivation` of rule and premise triples) in the
 * view's shape (relations by `source`/`target` entity ids, the derivation under provenance).
 */
function normalise(data: Record<string, unknown>): {
  entities: Record<string, unknown>[];
  relations: Record<string, unknown>[];
} {
  const graph = isRecord(data["graph"]) ? data["graph"] : data;
  const entities = asArray(graph["entities"]).filter(isRecord);
  const idByName = new Map(entities.map((entity) => [asString(entity["name"]), asString(entity["id"])]));
  const relations = asArray(graph["relations"])
    .filter(isRecord)
    .map((relation) => {
      if (relation["source"] !== undefined) return relation;
      const derivation = isRecord(relation["derivation"]) ? relation["derivation"] : undefined;
      const premises = derivation
        ? asArray(derivation["premises"])
            .filter(isRecord)
            .map(
              (premise) =>
                `${asString(premise["subject"])} ${asString(premise["predicate"])} ${asString(premise["object"])}`,
            )
        : [];
      return {
        ...relation,
        source: idByName.get(asString(relation["subject"])) ?? asString(relation["subject"]),
        target: idByName.get(asString(relation["object"])) ?? asString(relation["object"]),
        provenance: {
          ...provenanceOf(relation),
          ...(derivation ? { kind: "derived", derivation: { rule: derivation["rule"], premises } } : {}),
        },
      };
    });
  return { entities, relations };
}

/** Knowledge graph: entities and relations; derived relations highlighted, each derivation explained. */
const renderKnowledgeGraph: Parameters<typeof registerView>[1] = (data, context) => {
  if (!isRecord(data)) return null;
  const { entities, relations } = normalise(data);
  if (entities.length === 0) return null;
  const names = new Map(
    entities.map((entity) => [asString(entity["id"]), asString(entity["name"], asString(entity["id"]))]),
  );
  const relationText = (relation: Record<string, unknown>) =>
    `${names.get(asString(relation["source"])) ?? asString(relation["source"])} ${asString(relation["predicate"])} ${names.get(asString(relation["target"])) ?? asString(relation["target"])}`;
  const byId = new Map(relations.map((relation) => [asString(relation["id"]), relation]));
  const { shown, control } = nodeCap({
    total: entities.length,
    state: context.state,
    key: "shown",
    step: 250,
    noun: "entities",
    rerender: context.rerender,
  });
  const derived = relations.filter(isDerived);
  const svg = drawDiagram({
    direction: "LR",
    label: `Knowledge graph: ${shown} of ${entities.length} entities, ${relations.length} relations (${derived.length} derived)`,
    nodes: entities.slice(0, shown).map((entity) => {
      const kind = asString(provenanceOf(entity)["kind"], "asserted");
      return {
        id: asString(entity["id"]),
        title: asString(entity["name"], asString(entity["id"])),
        lines: [`${asString(entity["type"], "entity")} · ${kind}`],
        description: `${asString(entity["name"])} (${asString(entity["type"], "entity")}, ${kind})`,
        className: `provenance-${kind.replace(/[^a-z0-9_-]/gi, "")}`,
      };
    }),
    edges: relations.map((relation) => {
      const confidence = asNumber(relation["confidence"]);
      return {
        from: asString(relation["source"]),
        to: asString(relation["target"]),
        label: `${asString(relation["predicate"])}${confidence !== undefined ? ` ${formatNumber(confidence)}` : ""}`,
        className: isDerived(relation) ? "edge-derived" : "edge-asserted",
      };
    }),
  });
  return h(
    "div",
    {},
    control,
    diagramFrame(svg, [
      ["edge-asserted", "asserted or extracted relation"],
      ["edge-derived", "derived relation"],
    ]),
    derived.length > 0
      ? h(
          "div",
          { class: "derivations" },
          h("h3", {}, "Derivations"),
          h(
            "ol",
            {},
            derived.map((relation) => {
              const derivation = provenanceOf(relation)["derivation"];
              const premises = isRecord(derivation)
                ? asArray(derivation["premises"]).map((premise) => asString(premise))
                : [];
              return h(
                "li",
                { class: "derivation card", "data-relation-id": asString(relation["id"]) },
                h(
                  "p",
                  {},
                  h("strong", {}, relationText(relation)),
                  asNumber(relation["confidence"]) !== undefined
                    ? ` (confidence ${formatNumber(relation["confidence"])})`
                    : null,
                ),
                isRecord(derivation) ? h("p", {}, "Rule: ", h("code", {}, asString(derivation["rule"]))) : null,
                premises.length > 0
                  ? h(
                      "ul",
                      { class: "premises" },
                      premises.map((premise) => {
                        const source = byId.get(premise);
                        return h(
                          "li",
                          {},
                          source ? relationText(source) : premise,
                          h("span", { class: "muted" }, ` (${premise})`),
                        );
                      }),
                    )
                  : null,
                provenanceOf(relation)["source"]
                  ? h("p", { class: "muted" }, `From ${asString(provenanceOf(relation)["source"])}`)
                  : null,
              );
            }),
          ),
        )
      : null,
  );
};

registerView("knowledge_graph", renderKnowledgeGraph, { title: "Knowledge graph", order: 15 });
registerView("knowledgeGraph", renderKnowledgeGraph, { title: "Knowledge graph", order: 15 });
