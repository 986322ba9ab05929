/** A weighted pattern: a signal the heuristics look for. */
export interface WeightedPattern {
  /** Names the signal in the reasons, e.g. `hypothesize`. */
  name: string;
  pattern: RegExp;
  weight: number;
}
