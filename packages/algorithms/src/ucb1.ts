import { IssueList } from "./invalid-input.ts";

/** Default UCB1 exploration constant c = √2 (Auer et al., 2002); spec 3.12 default 1.414. */
export const defaultExplorationConstant = Math.SQRT2;

/** Visit statistics of one child. */
export interface Ucb1Statistics {
  /** Sum of the values backpropagated through the node. */
  total_value: number;
  /** Times the node was visited; a non-negative integer. */
  visits: number;
}

/** Input of {@link ucb1}. */
export interface Ucb1Input extends Ucb1Statistics {
  /** Visits of the parent; at least `visits`. */
  parent_visits: number;
  /** c >= 0, default √2. */
  exploration_constant?: number;
}

/**
 * UCB1 score of a child: `Q/N + c·sqrt(ln N_parent / N)` with Q = total
 * value, N = visits. An unvisited child (N = 0) scores `+Infinity`, so every
 * child is tried once before any is revisited.
 *
 * Throws INVALID_INPUT naming the field for non-finite values, a negative or
 * fractional visit count, `parent_visits < visits`, or a negative constant.
 */
export function ucb1(input: Ucb1Input): number {
  const issues = new IssueList();
  const constant = input.exploration_constant ?? defaultExplorationConstant;
  checkConstant(issues, constant, "exploration_constant");
  issues.finite(input.total_value, "total_value");
  const visitsOk = issues.integer(input.visits, "visits", 0);
  if (issues.integer(input.parent_visits, "parent_visits", 0) && visitsOk && input.parent_visits < input.visits) {
    issues.add("parent_visits", `must be at least the child's visits (${input.visits}), got ${input.parent_visits}`);
  }
  issues.throwIfAny(
    "visits and parent_visits are visit counts (integers >= 0); a parent is visited at least as often as its child.",
  );
  return ucb1Score(input.total_value, input.visits, input.parent_visits, constant);
}

/** Input of {@link selectUcb1Child}. */
export interface SelectUcb1ChildInput {
  children: readonly Ucb1Statistics[];
  parent_visits: number;
  exploration_constant?: number;
}

/** The chosen child and its score. */
export interface Ucb1Choice {
  index: number;
  score: number;
}

/**
 * Picks the child with the highest {@link ucb1} score. Unvisited children
 * score +Infinity, so the first unvisited child in input order wins; among
 * equal scores the earliest child wins. Throws INVALID_INPUT (fields
 * `children.i.visits`, …) on bad statistics or an empty list.
 */
export function selectUcb1Child(input: SelectUcb1ChildInput): Ucb1Choice {
  const issues = new IssueList();
  const constant = input.exploration_constant ?? defaultExplorationConstant;
  checkConstant(issues, constant, "exploration_constant");
  const parentOk = issues.integer(input.parent_visits, "parent_visits", 0);
  if (issues.array(input.children, "children", 1)) {
    input.children.forEach((child, index) => {
      issues.finite(child?.total_value, `children.${index}.total_value`);
      if (
        issues.integer(child?.visits, `children.${index}.visits`, 0) &&
        parentOk &&
        child.visits > input.parent_visits
      ) {
        issues.add(
          `children.${index}.visits`,
          `must not exceed parent_visits (${input.parent_visits}), got ${child.visits}`,
        );
      }
    });
  }
  issues.throwIfAny("visits are visit counts (integers >= 0); a parent is visited at least as often as each child.");
  let best: Ucb1Choice = { index: -1, score: -Infinity };
  input.children.forEach((child, index) => {
    const score = ucb1Score(child.total_value, child.visits, input.parent_visits, constant);
    if (best.index === -1 || score > best.score) best = { index, score };
  });
  return best;
}

/** UCB1 on already-validated numbers: the allocation-free hot path of the MCTS tree. @internal */
export function ucb1Score(
  totalValue: number,
  visits: number,
  parentVisits: number,
  explorationConstant: number,
): number {
  if (visits === 0) return Infinity;
  return totalValue / visits + explorationConstant * Math.sqrt(Math.log(parentVisits) / visits);
}

function checkConstant(issues: IssueList, constant: unknown, field: string): void {
  if (issues.finite(constant, field) && constant < 0) issues.add(field, `must be 0 or more, got ${constant}`);
}
