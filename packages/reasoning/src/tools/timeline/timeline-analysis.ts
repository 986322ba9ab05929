/**
 * Deterministic timeline arithmetic: fork points, word overlap and the
 * interleave merge. No model involved; every figure is reproducible.
 */

/** A branch as far as structure is concerned. */
export interface TimelineNodeLink {
  id: string;
  parent_branch_id: string | null;
}

/** Branch ids from the timeline's root down to `id` (inclusive). */
export function ancestry(id: string, byId: ReadonlyMap<string, TimelineNodeLink>): string[] {
  const chain: string[] = [];
  const seen = new Set<string>();
  let current: TimelineNodeLink | undefined = byId.get(id);
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    chain.push(current.id);
    current = current.parent_branch_id === null ? undefined : byId.get(current.parent_branch_id);
  }
  return chain.reverse();
}

/** Where two branches part: their nearest common ancestor and the hops from it to each. */
export interface ForkPoint {
  fork_branch_id: string;
  steps_since_fork: [number, number];
}

/**
 * The nearest common ancestor of two branches of one timeline (one of them if
 * it descends from the other) and how many branch hops lead from it to each.
 * Returns undefined only when the branches share no ancestor.
 */
export function forkPoint(a: string, b: string, byId: ReadonlyMap<string, TimelineNodeLink>): ForkPoint | undefined {
  const chainA = ancestry(a, byId);
  const chainB = ancestry(b, byId);
  let shared = 0;
  while (shared < chainA.length && shared < chainB.length && chainA[shared] === chainB[shared]) shared += 1;
  if (shared === 0) return undefined;
  return {
    fork_branch_id: chainA[shared - 1] as string,
    steps_since_fork: [chainA.length - shared, chainB.length - shared],
  };
}

/** Lower-cased words (letters and digits, any script). */
export function wordSet(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/**
 * Jaccard overlap |A ∩ B| / |A ∪ B| of the two texts' word sets, in [0, 1];
 * 1 when both are empty (identical).
 */
export function wordOverlap(a: string, b: string): number {
  const left = wordSet(a);
  const right = wordSet(b);
  if (left.size === 0 && right.size === 0) return 1;
  let intersection = 0;
  for (const word of left) if (right.has(word)) intersection += 1;
  return intersection / (left.size + right.size - intersection);
}

type Granularity = "paragraph" | "line" | "sentence";

const separators: Record<Granularity, string> = { paragraph: "\n\n", line: "\n", sentence: " " };

function split(text: string, granularity: Granularity): string[] {
  const trimmed = text.trim();
  const parts =
    granularity === "paragraph"
      ? trimmed.split(/\n\s*\n/)
      : granularity === "line"
        ? trimmed.split(/\n/)
        : trimmed.split(/(?<=[.!?])\s+/);
  return parts.map((part) => part.trim()).filter((part) => part.length > 0);
}

/** The coarsest unit at which either text has more than one segment. */
function granularityOf(texts: readonly string[]): Granularity {
  if (texts.some((text) => split(text, "paragraph").length > 1)) return "paragraph";
  if (texts.some((text) => split(text, "line").length > 1)) return "line";
  return "sentence";
}

function normalise(segment: string): string {
  return segment.toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * The interleave merge: both branches cut into segments (paragraphs, else
 * lines, else sentences: the coarsest unit that splits either), then taken
 * alternately, target first (the merge lands in the target), keeping order
 * within each branch and dropping a segment that repeats one already taken
 * (case and whitespace ignored).
 */
export function interleave(target: string, source: string): string {
  const granularity = granularityOf([target, source]);
  const left = split(target, granularity);
  const right = split(source, granularity);
  const taken: string[] = [];
  const seen = new Set<string>();
  const take = (segment: string | undefined) => {
    if (segment === undefined) return;
    const key = normalise(segment);
    if (seen.has(key)) return;
    seen.add(key);
    taken.push(segment);
  };
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    take(left[index]);
    take(right[index]);
  }
  return taken.join(separators[granularity]);
}
