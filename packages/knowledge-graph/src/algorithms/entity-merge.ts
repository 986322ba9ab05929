import { nameTokens, normalizeEntityName } from "./names.ts";

/** An entity as extracted or stored: merged on its normalised name. */
export interface EntityRecord {
  readonly name: string;
  readonly type: string;
  readonly observations: readonly string[];
}

/** The result of merging: the entity under its key, with every observation once. */
export interface MergedEntity extends EntityRecord {
  readonly key: string;
}

/** Two entities that may be the same but are not merged by their names alone; the model decides. */
export interface AmbiguousPair {
  /** The entity that would be kept (a stored one when one of the two is stored). */
  readonly keep: string;
  /** The entity that would be merged into `keep`. */
  readonly merge: string;
  readonly reason: "plural" | "contained" | "acronym" | "spelling";
  /** For ordering: how alike the names are, 0..1. */
  readonly similarity: number;
}

/** Types that say nothing; a specific type replaces them on merge. */
const genericTypes = new Set(["", "unknown", "thing", "entity", "concept", "other"]);

function mergeObservations(into: readonly string[], from: readonly string[]): string[] {
  const result = [...into];
  const seen = new Set(into.map((observation) => normalizeEntityName(observation)));
  for (const observation of from) {
    const trimmed = observation.trim();
    const key = normalizeEntityName(trimmed);
    if (trimmed.length === 0 || seen.has(key)) continue;
    seen.add(key);
    result.push(trimmed);
  }
  return result;
}

/** Merges `incoming` into `current` (same key): observations united, a specific type replacing a generic one. */
export function mergeEntity(current: MergedEntity, incoming: EntityRecord): MergedEntity {
  const type =
    genericTypes.has(current.type.trim().toLowerCase()) && !genericTypes.has(incoming.type.trim().toLowerCase())
      ? incoming.type
      : current.type;
  return {
    key: current.key,
    name: current.name,
    type,
    observations: mergeObservations(current.observations, incoming.observations),
  };
}

/**
 * Deterministic merge by normalised name: every record lands on the entity
 * whose key is `normalizeEntityName(record.name)`; the first record of a key
 * gives its display name. The set of keys and each key's observations do not
 * depend on the order of `records`.
 */
export function mergeByName(
  records: readonly EntityRecord[],
  existing: ReadonlyMap<string, MergedEntity> = new Map(),
): Map<string, MergedEntity> {
  const merged = new Map(existing);
  for (const record of records) {
    const key = normalizeEntityName(record.name);
    const current = merged.get(key);
    merged.set(
      key,
      current
        ? mergeEntity(current, record)
        : {
            key,
            name: record.name.trim(),
            type: record.type.trim() || "concept",
            observations: mergeObservations([], record.observations),
          },
    );
  }
  return merged;
}

function singular(token: string): string {
  if (token.length > 4 && token.endsWith("ies")) return `${token.slice(0, -3)}y`;
  if (token.length > 3 && token.endsWith("es") && /(?:s|x|z|ch|sh)es$/.test(token)) return token.slice(0, -2);
  if (token.length > 3 && token.endsWith("s") && !token.endsWith("ss")) return token.slice(0, -1);
  return token;
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    edits += 1;
    if (edits > 1) return false;
    if (a.length > b.length) i += 1;
    else if (b.length > a.length) j += 1;
    else {
      i += 1;
      j += 1;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

/** Why two distinct keys might name one entity, or null when they clearly do not. */
export function ambiguityBetween(a: string, b: string): { reason: AmbiguousPair["reason"]; similarity: number } | null {
  if (a === b) return null;
  const tokensA = nameTokens(a);
  const tokensB = nameTokens(b);
  const singularA = tokensA.map(singular).join(" ");
  const singularB = tokensB.map(singular).join(" ");
  if (singularA === singularB) return { reason: "plural", similarity: 0.97 };
  if (a.length >= 5 && b.length >= 5 && editDistanceAtMostOne(a, b)) return { reason: "spelling", similarity: 0.95 };
  const [short, long] = tokensA.length <= tokensB.length ? [tokensA, tokensB] : [tokensB, tokensA];
  if (short.length === 1 && long.length >= 2 && (short[0] as string).length >= 2 && (short[0] as string).length <= 6) {
    const initials = long.map((token) => token[0]).join("");
    if (initials === short[0]) return { reason: "acronym", similarity: 0.9 };
  }
  const longSet = new Set(long.map(singular));
  if (
    short.length < long.length &&
    short.some((token) => token.length >= 3) &&
    short.every((token) => longSet.has(singular(token)))
  ) {
    return { reason: "contained", similarity: short.length / long.length };
  }
  return null;
}

/**
 * Pairs among `fresh` keys and between `fresh` and `stored` keys that are
 * ambiguous (see `ambiguityBetween`), most alike first, at most `limit`; the
 * bound keeps the model's prompt the same size however large the graph grows.
 * Stored entities are never merged into fresh ones. Order-independent.
 */
export function findAmbiguousPairs(
  fresh: readonly MergedEntity[],
  stored: readonly MergedEntity[],
  limit: number,
): AmbiguousPair[] {
  const pairs: AmbiguousPair[] = [];
  const freshSorted = [...fresh].sort((a, b) => compareKeys(a.key, b.key));
  for (const candidate of stored) {
    for (const entity of freshSorted) {
      const found = ambiguityBetween(candidate.key, entity.key);
      if (found) pairs.push({ keep: candidate.key, merge: entity.key, ...found });
    }
  }
  for (let a = 0; a < freshSorted.length; a += 1) {
    for (let b = a + 1; b < freshSorted.length; b += 1) {
      const first = freshSorted[a] as MergedEntity;
      const second = freshSorted[b] as MergedEntity;
      const found = ambiguityBetween(first.key, second.key);
      if (!found) continue;
      // Keep the more specific name (more tokens), then the smaller key.
      const firstKeeps =
        nameTokens(first.key).length > nameTokens(second.key).length ||
        (nameTokens(first.key).length === nameTokens(second.key).length && first.key < second.key);
      pairs.push({ keep: firstKeeps ? first.key : second.key, merge: firstKeeps ? second.key : first.key, ...found });
    }
  }
  return pairs
    .sort((x, y) => y.similarity - x.similarity || compareKeys(x.keep, y.keep) || compareKeys(x.merge, y.merge))
    .slice(0, limit);
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
