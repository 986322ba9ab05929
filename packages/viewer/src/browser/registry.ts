import type { Child } from "./dom.ts";

/** A session as the page receives it: `session` plus one property per section. */
export type SessionData = Record<string, unknown> & {
  session: { id: string; mode: string; active_branch_id?: string | null; created_at: string; updated_at: string };
};

export interface InvocationData {
  id: string;
  tool: string;
  operation: string | null;
  provider: string | null;
  model: string | null;
  input_tokens: number;
  output_tokens: number;
  model_calls: number;
  latency_ms: number;
  success: boolean;
  error_code: string | null;
  quality: number | null;
  created_at: string;
}

/** What a view gets besides its section's data. */
export interface ViewContext {
  /** The whole session (views may read other sections, e.g. the active branch). */
  record: SessionData;
  invocations: readonly InvocationData[];
  /** State kept across live re-renders of this section (e.g. how many nodes are shown). */
  state: Map<string, unknown>;
  /** Draws this section again (after a "show more"). */
  rerender(): void;
}

/** Draws one section; returns nothing when there is nothing to show. */
export type ViewRender = (data: unknown, context: ViewContext) => Child;

export interface ViewOptions {
  /** Heading of the section. */
  title: string;
  /** Position on the page (smaller first). */
  order: number;
  /** The section's data from the record; defaults to `record[name]`. */
  select?: (record: SessionData, invocations: readonly InvocationData[]) => unknown;
}

export interface RegisteredView extends ViewOptions {
  name: string;
  render: ViewRender;
}

const views = new Map<string, RegisteredView>();

/**
 * Registers how the section `name` is drawn. A module whose session section is
 * called `name` gets its picture this way; a section with no registered view
 * is shown as formatted JSON.
 */
export function registerView(name: string, render: ViewRender, options: ViewOptions): void {
  if (views.has(name)) throw new Error(`A view named ${name} is registered twice`);
  views.set(name, { name, render, ...options });
}

/** Every registered view, in page order. */
export function registeredViews(): RegisteredView[] {
  return [...views.values()].sort((a, b) => a.order - b.order || a.name.localeCompare(b.name));
}

export function viewNamed(name: string): RegisteredView | undefined {
  return views.get(name);
}

/** A session's thoughts recorded by one mode (analysis results are thoughts with metadata). */
export function thoughtsOfMode(record: SessionData, mode: string): Array<Record<string, unknown>> {
  const thoughts = Array.isArray(record["thoughts"]) ? (record["thoughts"] as Array<Record<string, unknown>>) : [];
  return thoughts.filter((thought) => thought["mode"] === mode);
}
