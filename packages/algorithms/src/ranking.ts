/**
 * One option's place in a ranking. Field names follow `rankings` of
 * `reasoning_decision` (spec 3.9) plus the option's input `index`.
 */
export interface RankedOption {
  option: string;
  /** Position of the option in the input `options` array. */
  index: number;
  score: number;
  /** 1 = best. Ordinal: every option gets a distinct rank. */
  rank: number;
  /** True when another option has the same score (compared at 12 significant digits). */
  tied: boolean;
}

/**
 * The comparison key of a score: the score rounded to 12 significant digits,
 * so floating-point noise (0.1 + 0.2 vs 0.3) never decides a rank, while the
 * key stays a total order (unlike an epsilon comparison, which is not transitive).
 */
export function scoreKey(score: number): number {
  return Number(score.toPrecision(12));
}

/**
 * A score as shown to callers: at most 4 decimals, so float noise
 * (0.35000000000000003) never reaches an answer. Ranking uses the full value.
 */
export function displayScore(score: number): number {
  const rounded = Math.round(score * 10_000) / 10_000;
  return Number.isFinite(rounded) ? rounded : score;
}

/**
 * Ranks options by descending score (higher is better).
 *
 * Ranking is ordinal ("1234"): ranks are 1..n without gaps or repeats. Equal
 * scores (equal {@link scoreKey}) are ordered by input index, earliest first,
 * and marked `tied`, so the same input always yields the same ranking.
 * Runs in O(n log n). `options` and `scores` must have the same length
 * (callers validate; this helper does not throw).
 */
export function rankOptions(options: readonly string[], scores: readonly number[]): RankedOption[] {
  const keys = scores.map(scoreKey);
  const order = options.map((_, index) => index);
  order.sort((left, right) => (keys[right] as number) - (keys[left] as number) || left - right);
  return order.map((index, position) => {
    const key = keys[index] as number;
    const previous = position > 0 ? keys[order[position - 1] as number] : undefined;
    const next = position < order.length - 1 ? keys[order[position + 1] as number] : undefined;
    return {
      option: options[index] as string,
      index,
      score: displayScore(scores[index] as number),
      rank: position + 1,
      tied: previous === key || next === key,
    };
  });
}
