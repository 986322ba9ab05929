import {
  DeliberateError,
  listPage,
  listWindow,
  timelineTool,
  type ToolInput,
  type ToolOutput,
} from "@deliberate/contracts";
import type { Timeline, TimelineBranch, TimelineMergeConflict } from "../../store/repositories/timeline.repository.ts";
import { nowIso, runMode } from "@deliberate/engine";
import { type ReasoningContext, defineHandler } from "../../define-handler.ts";
import { createTimelineCompareMode, createTimelineMergeMode, timelineBranchMode } from "./timeline.mode.ts";
import { ancestry, forkPoint, interleave, wordOverlap } from "./timeline-analysis.ts";

type TimelineInput = ToolInput<typeof timelineTool>;
type TimelineOutput = ToolOutput<typeof timelineTool>;

/** How much of each earlier branch the branch prompt shows. */
const charactersPerLineageStep = 1500;

function toOutputBranch(branch: TimelineBranch) {
  return {
    id: branch.id,
    label: branch.label,
    content: branch.content,
    parent_branch_id: branch.parent_branch_id,
    status: branch.status,
    created_at: branch.created_at,
  };
}

/** The timeline, checked against the session the caller named (if any). */
async function loadTimeline(input: TimelineInput, context: ReasoningContext): Promise<Timeline> {
  const timeline = await context.store.timelines.getTimeline(input.timeline_id as string);
  if (input.session_id !== undefined && input.session_id !== timeline.session_id) {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Timeline ${timeline.id} belongs to session ${timeline.session_id}, not ${input.session_id}.`,
      issues: [{ field: "session_id", message: `timeline '${timeline.id}' is in session '${timeline.session_id}'` }],
      hint: "Omit session_id, or pass the session the timeline belongs to.",
    });
  }
  return timeline;
}

async function create(input: TimelineInput, context: ReasoningContext): Promise<TimelineOutput> {
  const existing = input.session_id === undefined ? undefined : await context.store.sessions.get(input.session_id);
  const sessionId = existing?.id ?? context.ids.next("ses");
  const timelineId = context.ids.next("tl");
  const branchId = context.ids.next("tb");
  const now = nowIso(context);
  const main = await context.store.transaction(async (repositories) => {
    if (existing === undefined) await repositories.sessions.create({ id: sessionId, mode: "timeline", now });
    else await repositories.sessions.touch({ id: sessionId, now });
    await repositories.timelines.createTimeline({
      id: timelineId,
      session_id: sessionId,
      current_branch_id: branchId,
      metadata: input.metadata ?? {},
      now,
    });
    return repositories.timelines.insertBranch({
      id: branchId,
      timeline_id: timelineId,
      parent_branch_id: null,
      label: input.label ?? "main",
      content: input.content as string,
      now,
    });
  });
  return { timeline_id: timelineId, session_id: sessionId, branch_id: main.id, ...pagedBranches([main], input) };
}

/**
 * Forks a new path from parent_branch_id (default: the timeline's root, so
 * unparented branches are alternatives to one another, not a chain). With
 * content, no model is asked; without it the model proposes the alternative
 * from the path so far. The new branch becomes the current point.
 */
async function branch(input: TimelineInput, context: ReasoningContext): Promise<TimelineOutput> {
  const timeline = await loadTimeline(input, context);
  const branches = await context.store.timelines.listBranches(timeline.id);
  const root = branches.find((item) => item.parent_branch_id === null);
  const parent = await context.store.timelines.getBranch(
    timeline.id,
    input.parent_branch_id ?? root?.id ?? timeline.current_branch_id,
    "parent_branch_id",
  );
  let label = input.label;
  let content = input.content;
  if (content === undefined) {
    const byId = new Map(branches.map((item) => [item.id, item]));
    const lineage = ancestry(parent.id, byId)
      .map((id) => byId.get(id) as TimelineBranch)
      .map(
        (item, index) =>
          `${index === 0 ? "Start" : "Then"} (${item.label}): ${item.content.slice(0, charactersPerLineageStep)}`,
      )
      .join("\n");
    const siblings = branches
      .filter((item) => item.parent_branch_id === parent.id)
      .map((item) => `${item.label}: ${item.content.slice(0, 200)}`);
    const answer = await runMode(context, timelineBranchMode, {
      lineage: `Timeline so far (fork point last):\n${lineage}`,
      existing: siblings,
    });
    content = answer.content;
    label ??= answer.label;
  }
  const branchId = context.ids.next("tb");
  const now = nowIso(context);
  const finalLabel = label ?? `branch ${branches.length}`;
  const created = await context.store.transaction(async (repositories) => {
    const inserted = await repositories.timelines.insertBranch({
      id: branchId,
      timeline_id: timeline.id,
      parent_branch_id: parent.id,
      label: finalLabel,
      content: content as string,
      ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
      now,
    });
    await repositories.timelines.setCurrentBranch({ id: timeline.id, branchId, now });
    await repositories.sessions.touch({ id: timeline.session_id, now });
    return inserted;
  });
  return {
    timeline_id: timeline.id,
    session_id: timeline.session_id,
    branch_id: created.id,
    ...pagedBranches([...branches, created], input),
  };
}

/**
 * Structure in code (fork point, hops since the fork, word overlap for every
 * pair; best branch and quality spread), narrative and per-branch quality
 * from the model. Read-only.
 */
async function compare(input: TimelineInput, context: ReasoningContext): Promise<TimelineOutput> {
  const timeline = await loadTimeline(input, context);
  const all = await context.store.timelines.listBranches(timeline.id);
  let selected: TimelineBranch[];
  if (input.branch_ids !== undefined) {
    selected = [];
    for (const [index, id] of input.branch_ids.entries())
      selected.push(await context.store.timelines.getBranch(timeline.id, id, `branch_ids.${index}`));
  } else {
    selected = all.filter((item) => item.status === "active");
    if (selected.length < 2) {
      throw new DeliberateError({
        code: "CONFLICT",
        message: `Timeline ${timeline.id} has ${selected.length} active branch(es); compare needs two.`,
        issues: [{ field: "branch_ids", message: "fewer than two active branches to compare" }],
        hint: "Fork a branch first (operation 'branch'), or pass branch_ids explicitly (merged branches included).",
      });
    }
  }
  const byId = new Map(all.map((item) => [item.id, item]));
  const pairs = [];
  for (let left = 0; left < selected.length; left += 1) {
    for (let right = left + 1; right < selected.length; right += 1) {
      const a = selected[left] as TimelineBranch;
      const b = selected[right] as TimelineBranch;
      // Branches of one timeline always share its first branch.
      const fork = forkPoint(a.id, b.id, byId) as NonNullable<ReturnType<typeof forkPoint>>;
      pairs.push({
        branch_ids: [a.id, b.id] as [string, string],
        ...fork,
        content_overlap: wordOverlap(a.content, b.content),
      });
    }
  }
  const labelOf = (id: string) => (byId.get(id) as TimelineBranch).label;
  const facts = pairs.map(
    (pair) =>
      `"${labelOf(pair.branch_ids[0])}" and "${labelOf(pair.branch_ids[1])}" fork at "${labelOf(pair.fork_branch_id)}" (${pair.steps_since_fork[0]} and ${pair.steps_since_fork[1]} branch step(s) after it); their contents share ${Math.round(pair.content_overlap * 100)}% of their words.`,
  );
  const mode = createTimelineCompareMode(selected.map((item) => item.id));
  const answer = await runMode(context, mode, {
    branches: selected.map((item) => ({ id: item.id, label: item.label, content: item.content })),
    facts,
  });

  const byBranch = selected.map((item) => {
    const judged = answer.assessments[item.id] as { quality: number; assessment: string };
    return { branch_id: item.id, quality: judged.quality, assessment: judged.assessment };
  });
  // Best: highest quality, ties to the earlier branch in the comparison order.
  const best = byBranch.reduce((winner, candidate) => (candidate.quality > winner.quality ? candidate : winner));
  const worst = Math.min(...byBranch.map((item) => item.quality));
  return {
    timeline_id: timeline.id,
    session_id: timeline.session_id,
    branches: selected.map(toOutputBranch),
    comparison: {
      divergence_points: [...facts, ...answer.divergence_points],
      quality_differences: { by_branch: byBranch, best_branch_id: best.branch_id, spread: best.quality - worst },
      convergence_opportunities: answer.convergence_opportunities,
      pairs,
    },
  };
}

/**
 * Merges source into target: the target's content becomes the merged content
 * (its previous content is kept in the merge record), the source is marked
 * merged, and the target becomes the current point, in one transaction.
 */
async function merge(input: TimelineInput, context: ReasoningContext): Promise<TimelineOutput> {
  const timeline = await loadTimeline(input, context);
  const source = await context.store.timelines.getBranch(
    timeline.id,
    input.source_branch_id as string,
    "source_branch_id",
  );
  const target = await context.store.timelines.getBranch(
    timeline.id,
    input.target_branch_id as string,
    "target_branch_id",
  );
  for (const [field, item] of [
    ["source_branch_id", source],
    ["target_branch_id", target],
  ] as const) {
    if (item.status === "merged") {
      throw new DeliberateError({
        code: "CONFLICT",
        message: `Branch ${item.id} was already merged into ${item.merged_into_id}.`,
        issues: [{ field, message: `branch '${item.id}' is merged` }],
        hint: `Use the branch it was merged into (${item.merged_into_id}) instead.`,
      });
    }
  }
  const strategy = input.merge_strategy;
  let mergedContent: string;
  let conflicts: TimelineMergeConflict[];
  if (strategy === "interleave") {
    mergedContent = interleave(target.content, source.content);
    conflicts = [];
  } else {
    const answer = await runMode(context, createTimelineMergeMode(strategy), {
      source: { id: source.id, label: source.label, content: source.content },
      target: { id: target.id, label: target.label, content: target.content },
    });
    mergedContent = answer.merged_content;
    conflicts = answer.conflicts as TimelineMergeConflict[];
  }
  const mergeId = context.ids.next("tm");
  const thoughtId = context.ids.next("th");
  const now = nowIso(context);
  const branches = await context.store.transaction(async (repositories) => {
    await repositories.timelines.recordMerge({
      id: mergeId,
      timeline_id: timeline.id,
      source_branch_id: source.id,
      target_branch_id: target.id,
      strategy,
      target_content_before: target.content,
      merged_content: mergedContent,
      conflicts,
      now,
    });
    await repositories.timelines.setBranchContent({ id: target.id, content: mergedContent, now });
    await repositories.timelines.markMerged({ id: source.id, intoId: target.id, now });
    await repositories.timelines.setCurrentBranch({ id: timeline.id, branchId: target.id, now });
    // The merged path joins the session's history, so later calls in the session build on it.
    const session = await repositories.sessions.get(timeline.session_id);
    const previous = await repositories.thoughts.recent(timeline.session_id, 1);
    await repositories.thoughts.append({
      id: thoughtId,
      session_id: timeline.session_id,
      branch_id: session.active_branch_id,
      parent_id: previous.at(-1)?.id ?? null,
      mode: "timeline",
      content: mergedContent,
      metadata: {
        timeline_id: timeline.id,
        source_branch_id: source.id,
        target_branch_id: target.id,
        merge_strategy: strategy,
      },
      created_at: now,
    });
    await repositories.sessions.touch({ id: timeline.session_id, now });
    return repositories.timelines.listBranches(timeline.id);
  });
  return {
    timeline_id: timeline.id,
    session_id: timeline.session_id,
    branch_id: target.id,
    ...pagedBranches(branches, input),
    merged_content: mergedContent,
    merge_strategy: strategy,
    conflicts,
  };
}

/** One page of a timeline's branches (`limit`, `offset`), with the page: a timeline's branches grow without bound. */
function pagedBranches(
  all: readonly TimelineBranch[],
  input: { limit?: number | undefined; offset?: number | undefined },
): Pick<TimelineOutput, "branches" | "page"> {
  const window = listWindow(input);
  return {
    branches: all.slice(window.offset, window.offset + window.limit).map(toOutputBranch),
    page: listPage(window, all.length),
  };
}

export const timelineHandler = defineHandler(timelineTool, async (input, context) => {
  switch (input.operation) {
    case "create":
      return create(input, context);
    case "branch":
      return branch(input, context);
    case "compare":
      return compare(input, context);
    case "merge":
      return merge(input, context);
  }
});
