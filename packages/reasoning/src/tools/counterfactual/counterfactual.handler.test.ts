import { counterfactualOutputSchema, needsCompletionSchema } from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeIntervention } from "@deliberate/algorithms";
import { hostModelRouter } from "@deliberate/engine";
import { bySchemaName, errorOf, type TestEngine, useTestEngines } from "../../test-support.ts";

const { setup } = useTestEngines();

const noModel = () => {
  throw new Error("the model must not be called");
};

async function whatIf(engine: TestEngine["engine"], input: Record<string, unknown>) {
  return counterfactualOutputSchema.parse(await engine.invoke("reasoning_counterfactual", input));
}

/** Demand (Z) drives both ad spend (X) and sales (Y); ads raise sales; sales raise profit (W). */
const model = {
  variables: ["demand", "ads", "sales", "profit"],
  relationships: [
    { cause: "demand", effect: "ads", strength: 1 },
    { cause: "demand", effect: "sales", strength: 1 },
    { cause: "ads", effect: "sales", strength: 2 },
    { cause: "sales", effect: "profit", strength: "0.5" },
  ],
};
const base = {
  scenario: "A shop deciding its ad budget",
  intervention: "Spend one more unit on ads",
  causal_model: model,
  intervention_target: { variable: "ads", change: 1 },
};

const changeOf = (output: { effects: Array<{ variable: string; change: number }> }, variable: string) =>
  output.effects.find((effect) => effect.variable === variable)?.change;

describe("reasoning_counterfactual with a causal model", () => {
  it("intervention: only descendants move, by the sum over paths of the strength products (no model call)", async () => {
    const { engine, model: scripted, store } = await setup(noModel);
    const output = await whatIf(engine, { ...base, analysis_depth: "intervention" });
    expect(output.effects).toEqual([
      { variable: "ads", change: 1, relation: "intervened" },
      { variable: "sales", change: 2, relation: "descendant" },
      { variable: "profit", change: 1, relation: "descendant" },
    ]);
    expect(changeOf(output, "demand")).toBeUndefined();
    expect(output.causal_chain).toEqual([
      { step: 1, cause: "ads", effect: "sales", strength: 2, contribution: 2, causal: true },
      { step: 2, cause: "sales", effect: "profit", strength: 0.5, contribution: 1, causal: true },
    ]);
    expect(output.paths).toEqual([
      { variables: ["ads", "sales"], product: 2, contribution: 2 },
      { variables: ["ads", "sales", "profit"], product: 1, contribution: 1 },
    ]);
    expect(output.semantics).toMatch(/^Rung 2, intervention: do\(ads := ads \+1\) cuts every relationship into ads/);
    expect(output.counterfactual_outcome).toBe(
      "Setting ads +1 changes sales by +2, profit by +1; nothing upstream of ads moves.",
    );
    expect(output.key_differences).toEqual([
      "sales: +2 via ads -> sales (+2)",
      "profit: +1 via ads -> sales -> profit (+1)",
    ]);
    expect(output.narrative_source).toBe("computed");
    expect(output.confidence).toBeUndefined();
    expect(output.causal_model.source).toBe("caller");
    expect(output.intervention_target).toEqual({ variable: "ads", change: 1, source: "caller" });
    expect(output.assumptions.some((assumption) => assumption.startsWith("Linear structural causal model"))).toBe(true);
    expect(scripted.calls).toHaveLength(0);

    const [thought] = await store.thoughts.listBySession(output.session_id);
    expect(thought).toMatchObject({
      id: output.thought_id,
      mode: "counterfactual",
      content: output.counterfactual_outcome,
    });
    expect(thought?.metadata).toMatchObject({
      effects: output.effects,
      causal_chain: output.causal_chain,
      analysis_depth: "intervention",
    });
  });

  it("association: includes confounding and reverse association (hand-worked regression), and says it is not causal", async () => {
    const { engine, model: scripted } = await setup(noModel);
    const output = await whatIf(engine, { ...base, analysis_depth: "association" });
    // ads = demand + u; sales = 3·demand + 2u + v. Var(ads) = 2, Cov(ads, sales) = 5, Cov(ads, demand) = 1.
    expect(changeOf(output, "sales")).toBeCloseTo(2.5, 12);
    expect(changeOf(output, "profit")).toBeCloseTo(1.25, 12);
    expect(changeOf(output, "demand")).toBeCloseTo(0.5, 12);
    expect(output.effects.map((effect) => [effect.variable, effect.relation])).toEqual([
      ["ads", "intervened"],
      ["sales", "descendant"],
      ["profit", "descendant"],
      ["demand", "ancestor"],
    ]);
    const links = output.causal_chain.map((step) => [step.cause, step.effect, step.causal]);
    expect(links).toEqual([
      ["demand", "ads", false],
      ["demand", "sales", false],
      ["ads", "sales", true],
      ["sales", "profit", true],
    ]);
    expect(output.semantics).toMatch(/^Rung 1, association: ads is observed \(not set\)/);
    expect(output.counterfactual_outcome).toContain("associations, not effects");
    expect(output.key_differences[0]).toBe(
      "sales: expected +2.5 alongside (descendant; causal share +2, correlation 0.9449)",
    );
    expect(scripted.calls).toHaveLength(0);
  });

  it("counterfactual with every variable observed: abduction-action-prediction gives factual vs counterfactual values", async () => {
    const { engine, model: scripted } = await setup(noModel);
    const output = await whatIf(engine, {
      ...base,
      intervention_target: { variable: "ads", value: 4 },
      observed: { demand: 1, ads: 2, sales: 6, profit: 3.5 },
    });
    expect(output.analysis_depth).toBe("counterfactual");
    expect(output.effects).toEqual([
      { variable: "ads", change: 2, relation: "intervened", factual: 2, counterfactual: 4 },
      { variable: "sales", change: 4, relation: "descendant", factual: 6, counterfactual: 10 },
      { variable: "profit", change: 2, relation: "descendant", factual: 3.5, counterfactual: 5.5 },
    ]);
    expect(output.intervention_target).toEqual({ variable: "ads", change: 2, value: 4, source: "caller" });
    expect(output.counterfactual_outcome).toBe(
      "Had ads been 4 instead of 2, sales would have been 10 instead of 6, profit would have been 5.5 instead of 3.5.",
    );
    expect(output.semantics).toMatch(/^Rung 3, counterfactual: abduction/);
    expect(scripted.calls).toHaveLength(0);
  });

  it("counterfactual with some values observed reports those values and differences for the rest", async () => {
    const { engine } = await setup(noModel);
    const output = await whatIf(engine, {
      ...base,
      intervention_target: { variable: "ads", change: -1 },
      observed: { sales: 6 },
    });
    expect(output.effects).toEqual([
      { variable: "ads", change: -1, relation: "intervened" },
      { variable: "sales", change: -2, relation: "descendant", factual: 6, counterfactual: 4 },
      { variable: "profit", change: -1, relation: "descendant" },
    ]);
    expect(output.counterfactual_outcome).toBe(
      "Had ads been -1 different, sales would have been 4 instead of 6, profit would have differed by -1.",
    );
  });

  it("matches the algorithm's total effects on random DAGs (property)", async () => {
    const { engine, model: scripted } = await setup(noModel);
    const dags = fc.integer({ min: 2, max: 6 }).chain((size) =>
      fc.record({
        size: fc.constant(size),
        edges: fc.uniqueArray(
          fc
            .tuple(
              fc.integer({ min: 0, max: size - 1 }),
              fc.integer({ min: 0, max: size - 1 }),
              fc.integer({ min: -3, max: 3 }),
            )
            .filter(([a, b]) => a < b),
          { selector: ([a, b]) => `${a}-${b}`, maxLength: 10 },
        ),
        target: fc.integer({ min: 0, max: size - 1 }),
        change: fc.integer({ min: -5, max: 5 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(dags, async ({ size, edges, target, change }) => {
        const causal_model = {
          variables: Array.from({ length: size }, (_, index) => `v${index}`),
          relationships: edges.map(([cause, effect, strength]) => ({
            cause: `v${cause}`,
            effect: `v${effect}`,
            strength,
          })),
        };
        const output = await whatIf(engine, {
          scenario: "s",
          intervention: "i",
          analysis_depth: "intervention",
          causal_model,
          intervention_target: { variable: `v${target}`, change },
        });
        const expected = computeIntervention({ causal_model, intervention: { variable: `v${target}`, change } });
        for (const effect of expected.effects) {
          const reported = changeOf(output, effect.variable);
          if (reported === undefined)
            expect(Math.abs(effect.variable === `v${target}` ? change : effect.change)).toBe(0);
          else expect(reported === effect.change).toBe(true);
        }
        // Variables upstream of the intervention never change under do().
        for (const effect of output.effects)
          if (effect.relation !== "intervened") expect(Number(effect.variable.slice(1))).toBeGreaterThan(target);
      }),
      { numRuns: 40 },
    );
    expect(scripted.calls).toHaveLength(0);
  });

  it("rejects a cyclic model with a clear error, before any model call or write", async () => {
    const { engine, model: scripted, store } = await setup(noModel);
    const error = await errorOf(
      engine.invoke("reasoning_counterfactual", {
        ...base,
        causal_model: {
          variables: ["a", "b", "c"],
          relationships: [
            { cause: "a", effect: "b", strength: 1 },
            { cause: "b", effect: "c" },
            { cause: "c", effect: "a", strength: 1 },
          ],
        },
        intervention_target: { variable: "a", change: 1 },
      }),
    );
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.issues).toEqual([
      {
        field: "causal_model.relationships",
        message: "contain a cycle: a -> b -> c -> a; a causal model must be acyclic",
      },
    ]);
    expect(error.hint).toMatch(/Remove or reverse one relationship/);
    expect(scripted.calls).toHaveLength(0);
    expect(await store.sessions.list({ limit: 10 })).toHaveLength(0);
  });

  it("rejects bad input naming the field", async () => {
    const { engine, model: scripted } = await setup(noModel);
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [
        {
          ...base,
          causal_model: { variables: ["a", "b"], relationships: [{ cause: "a", effect: "zz", strength: 1 }] },
          intervention_target: { variable: "a", change: 1 },
        },
        "causal_model.relationships.0.effect",
        /must be one of variables/,
      ],
      [
        { ...base, intervention_target: { variable: "ads", change: 1, value: 3 } },
        "intervention_target",
        /exactly one of change .* or value/,
      ],
      [{ ...base, intervention_target: { variable: "ads", value: 3 } }, "observed.ads", /needs the factual value/],
      [
        { ...base, intervention_target: { variable: "weather", change: 1 } },
        "intervention_target.variable",
        /not one of causal_model.variables/,
      ],
      [{ ...base, observed: { weather: 1 } }, "observed.weather", /not one of causal_model.variables/],
      [
        { scenario: "s", intervention: "i", intervention_target: { variable: "x", value: 1 }, observed: { x: 0 } },
        "intervention_target.value",
        /without a causal_model give change/,
      ],
      [{ ...base, analysis_depth: "deep" }, "analysis_depth", /./],
      [{ scenario: " ", intervention: "i" }, "scenario", /must not be empty/],
    ];
    for (const [input, field, message] of cases) {
      const error = await errorOf(engine.invoke("reasoning_counterfactual", input));
      expect(error.code, JSON.stringify(input)).toBe("INVALID_INPUT");
      const issue = error.issues.find((candidate) => candidate.field === field);
      expect(issue?.message, `${field} in ${JSON.stringify(error.issues)}`).toMatch(message);
    }
    expect(scripted.calls).toHaveLength(0);
  });
});

describe("reasoning_counterfactual with the model", () => {
  const narrative = {
    counterfactual_outcome: "Raising prices would have cut volume and, on balance, revenue.",
    key_differences: ["volume -4", "revenue -1"],
    assumptions: ["Competitors do not react"],
    confidence: 0.6,
  };

  const variables = {
    intervention_target: { variable: "price", level: 0, change: 2 },
    other_variables: [
      { name: "volume", level: 1 },
      { name: "revenue", level: 2 },
    ],
    rationale: "Demand is elastic.",
  };
  const links = {
    causes: { volume: { price: -2 }, revenue: { price: 1.5, volume: 1 } },
    rationale: "Each unit sold earns 1.",
  };

  it("has the model propose levelled variables, then links to lower levels (a DAG by construction), propagates in code, then narrates", async () => {
    const {
      engine,
      model: scripted,
      store,
    } = await setup(
      bySchemaName({
        counterfactual_variables: variables,
        counterfactual_links: links,
        counterfactual_narrative: narrative,
      }),
    );
    const progress: Array<[number, number | undefined]> = [];
    const output = counterfactualOutputSchema.parse(
      await engine.invoke(
        "reasoning_counterfactual",
        {
          scenario: "A cafe kept prices flat last year",
          intervention: "What if prices had risen by 2?",
          analysis_depth: "intervention",
        },
        {
          progress: (update) =>
            update.message?.startsWith("generating ") ? undefined : progress.push([update.progress, update.total]),
        },
      ),
    );
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(scripted.calls.map((call) => [call.schemaName, call.repair])).toEqual([
      ["counterfactual_variables", false],
      ["counterfactual_links", false],
      ["counterfactual_narrative", false],
    ]);
    // The links prompt lists the variables by level; its schema offers each variable only its lower-level causes.
    expect(scripted.calls[1]?.messages.at(-1)?.content).toContain(
      "Variables (causal level: name):\n- 0: price\n- 1: volume\n- 2: revenue",
    );
    expect(output.causal_model).toEqual({
      variables: ["price", "volume", "revenue"],
      relationships: [
        { cause: "price", effect: "volume", strength: -2, estimated: true },
        { cause: "price", effect: "revenue", strength: 1.5, estimated: true },
        { cause: "volume", effect: "revenue", strength: 1, estimated: true },
      ],
      source: "model",
    });
    expect(output.intervention_target).toEqual({ variable: "price", change: 2, source: "model" });
    // volume −4; revenue = −4·1 + 2·1.5 = −1.
    expect(output.effects.map((effect) => [effect.variable, effect.change])).toEqual([
      ["price", 2],
      ["volume", -4],
      ["revenue", -1],
    ]);
    expect(output.counterfactual_outcome).toBe(narrative.counterfactual_outcome);
    expect(output.key_differences).toEqual(narrative.key_differences);
    expect(output.confidence).toBe(0.6);
    expect(output.narrative_source).toBe("model");
    expect(output.assumptions).toContain("Competitors do not react");
    expect(output.assumptions.at(-1)).toBe(
      "The model judged the causal model and the intervention's variable and size: Demand is elastic. Each unit sold earns 1.",
    );
    const narrativePrompt = scripted.calls[2]?.messages[0]?.content ?? "";
    expect(narrativePrompt).toContain("Rung 2, intervention (doing)");
    expect(narrativePrompt).toContain("volume: -4 via price -> volume (-4)");

    const [thought] = await store.thoughts.listBySession(output.session_id);
    expect(thought).toMatchObject({ mode: "counterfactual", confidence: 0.6 });
    expect(thought?.metadata).toMatchObject({ causal_model: output.causal_model, effects: output.effects });
    const [invocation] = await store.invocations.list({ tool: "reasoning_counterfactual" });
    expect(invocation).toMatchObject({ model_calls: 3, quality: 0.6 });
  });

  it("sends a link from a variable that is not at a lower level back for repair, naming it", async () => {
    const backwards = { causes: { volume: { price: -2, revenue: 0.1 }, revenue: { volume: 1 } }, rationale: "loop" };
    const { engine, model: scripted } = await setup(
      bySchemaName({
        counterfactual_variables: variables,
        counterfactual_links: (index: number) => (index === 1 ? backwards : links),
        counterfactual_narrative: narrative,
      }),
    );
    const output = await whatIf(engine, {
      scenario: "A cafe",
      intervention: "Raise prices",
      analysis_depth: "intervention",
    });
    expect(scripted.calls.map((call) => [call.schemaName, call.repair])).toEqual([
      ["counterfactual_variables", false],
      ["counterfactual_links", false],
      ["counterfactual_links", true],
      ["counterfactual_narrative", false],
    ]);
    expect(scripted.calls[2]?.messages.at(-1)?.content).toMatch(/causes\.volume.*revenue/s);
    expect(output.causal_model.relationships).toHaveLength(3);
  });

  it("keeps the caller's variables (required keys), lists a repeated name once, and skips the links when no variable is above another", async () => {
    const flat = {
      given_variables: { rain: { level: 0 }, traffic: { level: 0 } },
      other_variables: [
        { name: "rain", level: 3 },
        { name: "temperature", level: 0 },
        { name: "temperature", level: 0 },
      ],
      rationale: "No links between these.",
    };
    const { engine, model: scripted } = await setup(
      bySchemaName({ counterfactual_variables: flat, counterfactual_narrative: narrative }),
    );
    const output = await whatIf(engine, {
      scenario: "A dry day",
      intervention: "Rain",
      analysis_depth: "counterfactual",
      intervention_target: { variable: "rain", change: 1 },
      observed: { traffic: 3 },
    });
    expect(scripted.calls.map((call) => call.schemaName)).toEqual([
      "counterfactual_variables",
      "counterfactual_narrative",
    ]);
    expect(scripted.calls[0]?.messages[0]?.content).toContain(
      "The model includes these variables, named exactly so: rain, traffic",
    );
    expect(output.causal_model).toEqual({
      variables: ["rain", "traffic", "temperature"],
      relationships: [],
      source: "model",
    });
    expect(output.effects).toEqual([{ variable: "rain", change: 1, relation: "intervened" }]);
    expect(output.intervention_target).toEqual({ variable: "rain", change: 1, source: "caller" });
  });

  it("fills missing strengths and the target of a caller's model, marking them estimated", async () => {
    const mapping = {
      strengths: { "1": 3 },
      intervention_target: { variable: "training", change: 10 },
      rationale: "ten more hours",
    };
    const { engine, model: scripted } = await setup(
      bySchemaName({ counterfactual_mapping: mapping, counterfactual_narrative: narrative }),
    );
    const output = await whatIf(engine, {
      scenario: "A team with little training",
      intervention: "What if we had trained ten more hours?",
      analysis_depth: "intervention",
      causal_model: {
        variables: ["training", "skill", "defects"],
        relationships: [
          { cause: "training", effect: "skill", strength: 0.1 },
          { cause: "skill", effect: "defects" },
        ],
      },
    });
    expect(
      output.causal_model.relationships.map((relationship) => [relationship.strength, relationship.estimated]),
    ).toEqual([
      [0.1, false],
      [3, true],
    ]);
    expect(output.intervention_target.source).toBe("model");
    expect(changeOf(output, "defects")).toBeCloseTo(3, 12);
    expect(scripted.calls.map((call) => call.schemaName)).toEqual([
      "counterfactual_mapping",
      "counterfactual_narrative",
    ]);
    expect(scripted.calls[0]?.messages[0]?.content).toContain("[1] skill -> defects: strength ?");
  });

  it("narrates a fully supplied analysis only when asked, with one model call", async () => {
    const { engine, model: scripted } = await setup(bySchemaName({ counterfactual_narrative: narrative }));
    const output = await whatIf(engine, { ...base, analysis_depth: "counterfactual", narrate: "true" });
    expect(scripted.calls.map((call) => call.schemaName)).toEqual(["counterfactual_narrative"]);
    expect(scripted.calls[0]?.messages[0]?.content).toContain("Rung 3, counterfactual (imagining)");
    expect(output.narrative_source).toBe("model");
    // The numbers are the code's, whatever the narrative says.
    expect(changeOf(output, "sales")).toBe(2);
  });

  it("takes the what-if from the scenario when reasoning_auto routes a question here", async () => {
    const { engine, model: scripted } = await setup(
      bySchemaName({
        auto_route: { selected_mode: "counterfactual", confidence: 0.8, rationale: "a what-if question" },
        counterfactual_variables: {
          intervention_target: { variable: "rain", level: 0, change: 2 },
          other_variables: [{ name: "traffic", level: 1 }],
          rationale: "wet roads",
        },
        counterfactual_links: { causes: { traffic: { rain: 0.5 } }, rationale: "slow traffic" },
        counterfactual_narrative: narrative,
      }),
    );
    const routed = await engine.invoke("reasoning_auto", { content: "What if it had rained twice as much yesterday?" });
    expect(routed.selected_mode).toBe("counterfactual");
    const output = counterfactualOutputSchema.parse(routed.result);
    expect(output.intervention_applied).toBe("rain +2");
    expect(changeOf(output, "traffic")).toBe(1);
    expect(scripted.calls[1]?.messages[0]?.content).toContain(
      "Intervention (what if): the what-if change stated in the scenario",
    );
  });

  it("does not narrate when narrate is false, even after asking the model for the model", async () => {
    const { engine, model: scripted } = await setup([
      {
        given_variables: { rain: { level: 0 } },
        other_variables: [{ name: "traffic", level: 1 }],
        rationale: "wet roads",
      },
      { causes: { traffic: { rain: 0.5 } }, rationale: "slow traffic" },
    ]);
    const output = await whatIf(engine, {
      scenario: "A dry day",
      intervention: "What if it had rained?",
      narrate: false,
      intervention_target: { variable: "rain", change: 1 },
    });
    expect(scripted.calls.map((call) => call.schemaName)).toEqual(["counterfactual_variables", "counterfactual_links"]);
    expect(scripted.calls[0]?.messages[0]?.content).toContain("The intervention sets 'rain' (change 1)");
    expect(output.narrative_source).toBe("computed");
    expect(output.intervention_target).toEqual({ variable: "rain", change: 1, source: "caller" });
    expect(changeOf(output, "traffic")).toBe(0.5);
  });
});

describe("reasoning_counterfactual host-executed", () => {
  it("suspends for the variables, then their links, then the narrative, each depending on the last, and finishes with the computed effects", async () => {
    const testEngine = await setup([], { router: hostModelRouter });
    const { engine, store } = testEngine;
    const answers: Record<string, unknown> = {
      counterfactual_variables: {
        intervention_target: { variable: "price", level: 0, change: 1 },
        other_variables: [{ name: "volume", level: 1 }],
        rationale: "elastic demand",
      },
      counterfactual_links: { causes: { volume: { price: -2 } }, rationale: "two fewer per unit" },
      counterfactual_narrative: {
        counterfactual_outcome: "Volume falls by 2.",
        key_differences: ["volume -2"],
        assumptions: [],
        confidence: 0.5,
      },
    };
    let result = await engine.invoke("reasoning_counterfactual", { scenario: "A cafe", intervention: "Raise prices" });
    const asked: string[][] = [];
    while (result.status === "needs_completion") {
      const step = needsCompletionSchema.parse(result);
      expect(await store.sessions.list({ limit: 5 })).toHaveLength(0);
      asked.push(step.prompts.map((prompt) => prompt.name));
      result = await engine.invoke("reasoning_submit", {
        resume_token: step.resume_token,
        answers: step.prompts.map((prompt) => ({ prompt_id: prompt.id, answer: answers[prompt.name] })),
      });
    }
    expect(asked).toEqual([["counterfactual_variables"], ["counterfactual_links"], ["counterfactual_narrative"]]);
    const output = counterfactualOutputSchema.parse(result);
    expect(output.effects.map((effect) => [effect.variable, effect.change])).toEqual([
      ["price", 1],
      ["volume", -2],
    ]);
    expect(output.counterfactual_outcome).toBe("Volume falls by 2.");
  });

  it("answers at once, without suspending, when the causal model and target are supplied", async () => {
    const testEngine = await setup([], { router: hostModelRouter });
    const output = counterfactualOutputSchema.parse(
      await testEngine.engine.invoke("reasoning_counterfactual", { ...base, analysis_depth: "intervention" }),
    );
    expect(changeOf(output, "sales")).toBe(2);
  });
});

describe("the causal-model answer schemas the model sees", () => {
  it("step 1: the caller's variables are required keys, the model's target is declared inline, 2-12 variables in all, levels unbounded", async () => {
    const { createCausalVariablesMode } = await import("./counterfactual.mode.ts");
    const { answerJsonSchema } = await import("@deliberate/engine");
    const given = createCausalVariablesMode({
      scenario: "s",
      intervention: "i",
      depth: "intervention",
      target: { variable: "price", change: 2 },
      observed: ["demand"],
    });
    const published = answerJsonSchema(given.output) as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(published.required).toEqual(["given_variables", "other_variables", "rationale"]);
    expect(published.properties["given_variables"]).toMatchObject({ required: ["price", "demand"] });
    expect(published.properties["other_variables"]).toMatchObject({ minItems: 0, maxItems: 10 });
    expect(
      given.output.safeParse({ given_variables: { price: { level: 0 } }, other_variables: [], rationale: "r" }).success,
    ).toBe(false);

    const proposed = createCausalVariablesMode({
      scenario: "s",
      intervention: "i",
      depth: "intervention",
      target: undefined,
      observed: [],
    });
    const open = answerJsonSchema(proposed.output) as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(open.required).toEqual(["intervention_target", "other_variables", "rationale"]);
    expect(open.properties["other_variables"]).toMatchObject({ minItems: 1, maxItems: 11 });
    // A target named again among the others is one variable, with the target's level.
    expect(
      proposed.output.parse({
        intervention_target: { variable: "x", level: 40, change: 1 },
        other_variables: [
          { name: "y", level: -3 },
          { name: "x", level: 0 },
        ],
        rationale: "r",
      }),
    ).toEqual({
      variables: [
        { name: "y", level: -3 },
        { name: "x", level: 40 },
      ],
      intervention_target: { variable: "x", change: 1 },
      rationale: "r",
    });
  });

  it("step 2: each variable's causes are keyed by the lower-level variables, all required, in closed objects", async () => {
    const { createCausalLinksMode } = await import("./counterfactual.mode.ts");
    const { answerJsonSchema } = await import("@deliberate/engine");
    const mode = createCausalLinksMode({
      scenario: "s",
      intervention: "i",
      variables: [
        { name: "a", level: 0 },
        { name: "b", level: 0 },
        { name: "c", level: 1 },
        { name: "d", level: 2 },
      ],
    });
    const published = answerJsonSchema(mode.output) as {
      properties: {
        causes: {
          required: string[];
          additionalProperties: boolean;
          properties: Record<
            string,
            { properties: Record<string, unknown>; additionalProperties: boolean; required?: string[] }
          >;
        };
      };
    };
    const causes = published.properties.causes;
    expect(causes.required).toEqual(["c", "d"]);
    expect(causes.additionalProperties).toBe(false);
    expect(Object.keys(causes.properties["c"]?.properties ?? {})).toEqual(["a", "b"]);
    expect(Object.keys(causes.properties["d"]?.properties ?? {})).toEqual(["a", "b", "c"]);
    expect(causes.properties["d"]?.additionalProperties).toBe(false);
    expect(causes.properties["d"]?.required).toEqual(["a", "b", "c"]);
    // A zero strength is no direct effect: not a link.
    expect(mode.output.parse({ causes: { c: { a: 0, b: 2 }, d: { a: -1, b: 0, c: 0.5 } }, rationale: "r" })).toEqual({
      relationships: [
        { cause: "b", effect: "c", strength: 2 },
        { cause: "a", effect: "d", strength: -1 },
        { cause: "c", effect: "d", strength: 0.5 },
      ],
      rationale: "r",
    });
    expect(
      mode.output.safeParse({ causes: { c: { a: 0, b: 0, d: 1 }, d: { a: 0, b: 0, c: 0 } }, rationale: "r" }).success,
    ).toBe(false);
    expect(mode.output.safeParse({ causes: { c: { a: 1 }, d: { a: 0, b: 0, c: 0 } }, rationale: "r" }).success).toBe(
      false,
    );
  });

  it("random schema-valid answers to both steps always give a valid DAG over the variables, with the given ones in it (property)", async () => {
    const { createCausalLinksMode, createCausalVariablesMode } = await import("./counterfactual.mode.ts");
    const { answerJsonSchema } = await import("@deliberate/engine");
    const { randomSchemaAnswer } = await import("@deliberate/engine/testing");
    const { validateCausalModel } = await import("@deliberate/algorithms");
    const shapes = [
      { target: undefined, observed: [] },
      { target: { variable: "price", change: 1 }, observed: ["demand", "volume"] },
      { target: undefined, observed: ["a b", "c"] },
    ];
    for (const [shapeIndex, shape] of shapes.entries()) {
      const step1 = createCausalVariablesMode({ scenario: "s", intervention: "i", depth: "intervention", ...shape });
      for (let seed = 0; seed < 25; seed += 1) {
        const first = step1.output.parse(
          await randomSchemaAnswer(answerJsonSchema(step1.output), seed + shapeIndex * 1000),
        );
        const names = first.variables.map((variable) => variable.name);
        expect(names.length).toBeGreaterThanOrEqual(1);
        for (const name of [...(shape.target ? [shape.target.variable] : []), ...shape.observed])
          expect(names).toContain(name);
        if (first.intervention_target) expect(names).toContain(first.intervention_target.variable);
        const step2 = createCausalLinksMode({ scenario: "s", intervention: "i", variables: first.variables });
        const second = step2.output.parse(await randomSchemaAnswer(answerJsonSchema(step2.output), seed));
        expect(() => validateCausalModel({ variables: names, relationships: second.relationships })).not.toThrow();
      }
    }
  });
});
