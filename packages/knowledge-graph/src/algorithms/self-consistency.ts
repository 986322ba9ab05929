import { nameTokens, normalizeEntityName } from "./names.ts";

export interface AnswerCluster {
  /** Indexes of the samples in the cluster, ascending. */
  readonly members: readonly number[];
}

export interface Agreement {
  /** Clusters of equivalent answers, largest first (ties: the one with the earliest sample first). */
  readonly clusters: readonly AnswerCluster[];
  /** Size of the largest cluster over the number of samples: 1/n (all differ) to 1 (all agree). */
  readonly agreement: number;
  /** The sample that represents the majority: the earliest member of the largest cluster. */
  readonly chosen: number;
}

/** Two answers agree when the Jaccard similarity of their normalised token sets reaches this. */
export const answerSimilarityThreshold = 0.8;

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const token of a) if (b.has(token)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * Self-consistency agreement, in code: answers are normalised (case, accents,
 * punctuation, articles) to token sets; two agree when their Jaccard
 * similarity is at least `answerSimilarityThreshold`; clusters are the
 * connected components of that relation, so they do not depend on the order
 * of the samples.
 */
export function measureAgreement(answers: readonly string[]): Agreement {
  if (answers.length === 0) throw new Error("measureAgreement needs at least one answer");
  const tokens = answers.map((answer) => new Set(nameTokens(normalizeEntityName(answer))));
  const parent = answers.map((_, index) => index);
  const find = (index: number): number => {
    let root = index;
    while (parent[root] !== root) root = parent[root] as number;
    return root;
  };
  for (let a = 0; a < answers.length; a += 1) {
    for (let b = a + 1; b < answers.length; b += 1) {
      if (jaccard(tokens[a] as Set<string>, tokens[b] as Set<string>) >= answerSimilarityThreshold) {
        const rootA = find(a);
        const rootB = find(b);
        if (rootA !== rootB) parent[Math.max(rootA, rootB)] = Math.min(rootA, rootB);
      }
    }
  }
  const groups = new Map<number, number[]>();
  answers.forEach((_, index) => {
    const root = find(index);
    (groups.get(root) ?? groups.set(root, []).get(root))?.push(index);
  });
  const clusters = [...groups.values()]
    .map((members) => ({ members }))
    .sort((a, b) => b.members.length - a.members.length || (a.members[0] as number) - (b.members[0] as number));
  const largest = clusters[0] as AnswerCluster;
  return { clusters, agreement: largest.members.length / answers.length, chosen: largest.members[0] as number };
}
