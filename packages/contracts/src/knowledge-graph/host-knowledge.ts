import { z } from "zod";
import { lazySchema } from "../lazy-schema.ts";

/** Bounds on the facts and rules a host gives as data in one call. */
export const hostKnowledgeLimits = { facts: 2_000, rules: 50, atomsPerSide: 6, termLength: 200 } as const;

const predicatePattern = /^[A-Za-z][A-Za-z0-9_ -]*$/;
const variablePattern = /^\?[A-Za-z][A-Za-z0-9_]*$/;

function entityName(what: string) {
  return z
    .string()
    .trim()
    .min(1, `${what} must not be empty`)
    .max(hostKnowledgeLimits.termLength, `${what} is at most ${hostKnowledgeLimits.termLength} characters`);
}

const predicateSchema = lazySchema(() =>
  z
    .string()
    .trim()
    .min(1, "predicate must not be empty")
    .max(80, "predicate is at most 80 characters")
    .regex(
      predicatePattern,
      "predicate is a relation name such as parent_of: letters, digits, '_', '-' or spaces, starting with a letter",
    ),
);

/** One fact the host asserts, by entity names (no variables). */
export const hostFactSchema = lazySchema(() =>
  z
    .strictObject({
      subject: entityName("subject"),
      predicate: predicateSchema,
      object: entityName("object"),
    })
    .superRefine((fact, context) => {
      for (const side of ["subject", "object"] as const) {
        if (fact[side].startsWith("?"))
          context.addIssue({
            code: "custom",
            path: [side],
            message: `a fact names entities, not variables ('${fact[side]}'); variables belong in rules`,
          });
      }
    }),
);
export type HostFact = z.infer<typeof hostFactSchema>;

/** A term of a rule's pattern: a variable (`?x`) or an entity name. */
const termSchema = lazySchema(() =>
  entityName("a term").refine((term) => !term.startsWith("?") || variablePattern.test(term), {
    message: "a variable is '?' followed by a letter, then letters, digits or '_' (e.g. ?x, ?parent)",
  }),
);

/** One (subject, predicate, object) pattern of a rule. */
export const ruleAtomSchema = lazySchema(() =>
  z.strictObject({ subject: termSchema, predicate: predicateSchema, object: termSchema }),
);
export type RuleAtom = z.infer<typeof ruleAtomSchema>;

/** An inequality of a rule (`left != right`): the two terms must name different entities for the rule to fire. */
export const ruleInequalitySchema = lazySchema(() => z.strictObject({ left: termSchema, right: termSchema }));
export type RuleInequality = z.infer<typeof ruleInequalitySchema>;

/**
 * A rule the host states: when every condition matches (variables bound
 * consistently) and every inequality of `different` holds, every conclusion holds.
 */
export const hostRuleSchema = lazySchema(() =>
  z
    .strictObject({
      name: z.string().trim().min(1, "name must not be empty").max(120, "name is at most 120 characters"),
      conditions: z
        .array(ruleAtomSchema)
        .min(1, "a rule needs at least one condition")
        .max(hostKnowledgeLimits.atomsPerSide, `a rule has at most ${hostKnowledgeLimits.atomsPerSide} conditions`),
      different: z
        .array(ruleInequalitySchema)
        .max(hostKnowledgeLimits.atomsPerSide, `a rule has at most ${hostKnowledgeLimits.atomsPerSide} inequalities`)
        .optional()
        .describe(
          "Inequalities (left != right): terms that must name different entities, e.g. ?x and ?y of a sibling rule, so nobody is their own sibling",
        ),
      conclusions: z
        .array(ruleAtomSchema)
        .min(1, "a rule needs at least one conclusion")
        .max(hostKnowledgeLimits.atomsPerSide, `a rule has at most ${hostKnowledgeLimits.atomsPerSide} conclusions`),
    })
    .superRefine((rule, context) => {
      const bound = new Set<string>();
      for (const atom of rule.conditions)
        for (const term of [atom.subject, atom.object]) if (term.startsWith("?")) bound.add(term);
      (rule.different ?? []).forEach((pair, index) => {
        for (const side of ["left", "right"] as const) {
          const term = pair[side];
          if (term.startsWith("?") && !bound.has(term)) {
            context.addIssue({
              code: "custom",
              path: ["different", index, side],
              message: `variable ${term} does not occur in the conditions, so the inequality could never be checked; bind it in a condition`,
            });
          }
        }
        if (pair.left.trim().toLowerCase() === pair.right.trim().toLowerCase()) {
          context.addIssue({
            code: "custom",
            path: ["different", index],
            message: `${pair.left} != ${pair.right} can never hold, so the rule would never fire; name two different terms`,
          });
        }
      });
      rule.conclusions.forEach((atom, index) => {
        for (const side of ["subject", "object"] as const) {
          const term = atom[side];
          if (term.startsWith("?") && !bound.has(term)) {
            context.addIssue({
              code: "custom",
              path: ["conclusions", index, side],
              message: `variable ${term} does not occur in the conditions, so the conclusion would not name an entity; bind it in a condition`,
            });
          }
        }
      });
    }),
);
export type HostRule = z.infer<typeof hostRuleSchema>;

/** Facts as data: stored as asserted facts without asking the model to re-extract them. */
export const hostFactsSchema = lazySchema(() =>
  z
    .array(hostFactSchema)
    .max(hostKnowledgeLimits.facts, `send at most ${hostKnowledgeLimits.facts} facts per call`)
    .describe("Facts as data (subject, predicate, object by entity names), stored as asserted without re-extraction"),
);

/** Rules as data: kept with the session and applied in code by forward chaining. */
export const hostRulesSchema = lazySchema(() =>
  z
    .array(hostRuleSchema)
    .max(hostKnowledgeLimits.rules, `send at most ${hostKnowledgeLimits.rules} rules per call`)
    .superRefine((rules, context) => {
      const seen = new Map<string, number>();
      rules.forEach((rule, index) => {
        const earlier = seen.get(rule.name);
        if (earlier !== undefined)
          context.addIssue({
            code: "custom",
            path: [index, "name"],
            message: `'${rule.name}' is also the name of rules.${earlier}; give each rule its own name`,
          });
        else seen.set(rule.name, index);
      });
    })
    .describe(
      "Rules as data (conditions and conclusions over ?variables and entity names), kept with the session and applied in code",
    ),
);
