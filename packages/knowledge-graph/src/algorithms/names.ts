/**
 * The key an entity is merged on: Unicode-normalised, accents and case
 * folded, punctuation collapsed to single spaces, leading articles dropped.
 * Idempotent: `normalizeEntityName(normalizeEntityName(x)) === normalizeEntityName(x)`.
 * A name with no letters or digits keeps its trimmed, lower-cased form.
 */
export function normalizeEntityName(name: string): string {
  const folded = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
  const withoutArticles = folded.replace(/^(?:(?:the|a|an) )+(?=.)/u, "");
  if (withoutArticles.length > 0) return withoutArticles;
  return name.trim().toLowerCase();
}

/**
 * A predicate in snake_case: lower-cased, accents folded, every run of other
 * characters one underscore. `not_x` is the negation of `x`.
 */
export function normalizePredicate(predicate: string): string {
  const normalized = predicate
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  return normalized.length > 0 ? normalized : "related_to";
}

const negationPrefix = "not_";

/** The negation of a normalised predicate: `p` <-> `not_p`. */
export function negatePredicate(predicate: string): string {
  return predicate.startsWith(negationPrefix)
    ? predicate.slice(negationPrefix.length)
    : `${negationPrefix}${predicate}`;
}

/** Tokens of a normalised name, for candidate blocking and similarity. */
export function nameTokens(normalized: string): string[] {
  return normalized.split(" ").filter((token) => token.length > 0);
}
