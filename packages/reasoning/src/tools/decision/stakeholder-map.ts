/** The four power/interest quadrants (Mendelow's grid). */
export type StakeholderQuadrant = "key_players" | "keep_satisfied" | "keep_informed" | "minimal_effort";

/** A level at or above this counts as high (a stakeholder exactly on the line is treated as high). */
export const highLevelThreshold = 0.5;

export interface StakeholderLevels {
  name: string;
  power_level: number;
  interest_level: number;
}

/**
 * The quadrant of a power/interest pair: high power and high interest =
 * key players; high power, low interest = keep satisfied; low power, high
 * interest = keep informed; both low = minimal effort. High means >= 0.5.
 */
export function quadrantOf(levels: Pick<StakeholderLevels, "power_level" | "interest_level">): StakeholderQuadrant {
  const highPower = levels.power_level >= highLevelThreshold;
  const highInterest = levels.interest_level >= highLevelThreshold;
  if (highPower) return highInterest ? "key_players" : "keep_satisfied";
  return highInterest ? "keep_informed" : "minimal_effort";
}

export type StakeholderMap = Record<StakeholderQuadrant, string[]>;

/**
 * Places stakeholders in quadrants. Within a quadrant, names are ordered by
 * power + interest (highest first), then by power, then by input order, so
 * the same input always gives the same map.
 */
export function mapStakeholders(stakeholders: readonly StakeholderLevels[]): StakeholderMap {
  const map: StakeholderMap = { key_players: [], keep_satisfied: [], keep_informed: [], minimal_effort: [] };
  const order = stakeholders.map((stakeholder, index) => ({ stakeholder, index }));
  order.sort(
    (left, right) =>
      right.stakeholder.power_level +
        right.stakeholder.interest_level -
        (left.stakeholder.power_level + left.stakeholder.interest_level) ||
      right.stakeholder.power_level - left.stakeholder.power_level ||
      left.index - right.index,
  );
  for (const { stakeholder } of order) map[quadrantOf(stakeholder)].push(stakeholder.name);
  return map;
}
