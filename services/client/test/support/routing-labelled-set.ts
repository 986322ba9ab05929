import type { ReasoningType } from "@deliberate/contracts";

// A labelled set of chat queries for the coordinator's routing policy (src/coordinator/routing-quality.test.ts):
// written for this purpose, not taken from the policy's own patterns. `reason: true` marks an explicit request for
// reasoning (why / deduce / plan / compare / decide / hypothesize / consequences / patterns, however phrased), which
// the defaults must send to reasoning, with the reasoning type a person would pick; `reason: false` marks ordinary
// chat (lookups, tasks, writing, small talk), which stays with the host's standard model unless its answer is a
// refusal. Varied on purpose: different verbs, word orders, politeness, domains, near misses ("plan tier",
// "why not", "compare prices"...).

export interface LabelledQuery {
  query: string;
  reason: boolean;
  /** For reasoning queries: the type a person would request (null: any type is fine). */
  type?: ReasoningType | null;
}

export const routingLabelledSet: LabelledQuery[] = [
  // Explicit reasoning requests.
  { query: "Why did last night's deploy fail?", reason: true, type: "abductive" },
  { query: "why is the checkout page so slow since Tuesday", reason: true, type: "abductive" },
  { query: "Can you explain why our signups dropped in March?", reason: true, type: "abductive" },
  { query: "How come the nightly backup finished in two minutes instead of an hour?", reason: true, type: "abductive" },
  { query: "What caused the outage on the payments cluster?", reason: true, type: "abductive" },
  { query: "Figure out what went wrong with the billing run.", reason: true, type: "abductive" },
  { query: "Hypothesize why customers in Brazil churn more.", reason: true, type: "abductive" },
  { query: "Diagnose the memory leak in the worker: RSS grows 50 MB an hour.", reason: true, type: "abductive" },
  { query: "What's the most likely explanation for the spike in 502s?", reason: true, type: "abductive" },
  { query: "Find the root cause of the flaky login test.", reason: true, type: "abductive" },
  { query: "Deduce whether Carol can approve the invoice, given the approval rules.", reason: true, type: "deductive" },
  {
    query: "All managers can sign contracts and Dana is a manager. What can we conclude?",
    reason: true,
    type: "deductive",
  },
  {
    query: "If every build on main is tagged and this build is untagged, does it follow that it wasn't built on main?",
    reason: true,
    type: "deductive",
  },
  { query: "Prove that the scheduler can never run two jobs on the same slot.", reason: true, type: "deductive" },
  { query: "From these access rules, infer who can read the audit log.", reason: true, type: "deductive" },
  {
    query: "Plan a strategy for moving our monolith to services over six months.",
    reason: true,
    type: "planAndExecuteCoT",
  },
  { query: "Please plan out the database migration with zero downtime.", reason: true, type: "planAndExecuteCoT" },
  { query: "Help me plan a three-day trip to Lisbon on a tight budget.", reason: true, type: "planAndExecuteCoT" },
  { query: "Draft a rollout plan for the new pricing page.", reason: true, type: "planAndExecuteCoT" },
  { query: "How should we approach rewriting the search indexer?", reason: true, type: "planAndExecuteCoT" },
  { query: "Come up with a go-to-market strategy for the mobile app.", reason: true, type: "planAndExecuteCoT" },
  { query: "Compare Postgres and SQLite for a single-node job queue.", reason: true, type: null },
  { query: "Kafka vs RabbitMQ for our event bus: which fits better?", reason: true, type: null },
  { query: "What are the pros and cons of moving to a four-day week?", reason: true, type: null },
  { query: "Walk me through the trade-offs between caching at the edge and in the app.", reason: true, type: null },
  { query: "Which of these three vendors would be cheaper over five years?", reason: true, type: null },
  { query: "Should we hire a second SRE or buy a managed monitoring service?", reason: true, type: null },
  { query: "Help me decide between the two job offers.", reason: true, type: null },
  { query: "Decide whether we ship Friday or wait for the fix.", reason: true, type: null },
  { query: "Is it worth upgrading the fleet to the new instance type?", reason: true, type: null },
  { query: "Which framework should I choose for a small internal dashboard?", reason: true, type: null },
  { query: "What would happen if we doubled the cache TTL?", reason: true, type: null },
  { query: "Spell out the consequences of dropping support for Node 18.", reason: true, type: null },
  { query: "Explain the causal chain from the config change to the outage.", reason: true, type: "abductive" },
  { query: "What's the underlying pattern in these failing test names?", reason: true, type: "inductive" },
  { query: "Here are five incident reports. What do they have in common?", reason: true, type: "inductive" },
  { query: "Generalize a rule from these examples of valid usernames.", reason: true, type: "inductive" },
  {
    query: "Reason through this: the alarm rang, the door was locked, and nothing was taken.",
    reason: true,
    type: null,
  },
  { query: "Solve this logic puzzle about the five houses.", reason: true, type: null },
  { query: "I need to work out why the invoices and the ledger disagree by 3%.", reason: true, type: "abductive" },
  // Added after the patterns were written, and not tuned for: the figures include how these fare.
  { query: "What made the queue back up this morning?", reason: true, type: "abductive" },
  { query: "Talk me through whether raising prices would cost us customers.", reason: true, type: null },
  { query: "Is Alice necessarily in the admin group if she can delete users?", reason: true, type: "deductive" },
  { query: "Work out a schedule that fits all five teams' constraints.", reason: true, type: "planAndExecuteCoT" },
  { query: "Which is faster for bulk inserts, COPY or INSERT?", reason: true, type: null },
  { query: "Why, thank you!", reason: false },
  { query: "Compare prices for flights to Rome.", reason: false },
  { query: "Explain what a mutex is.", reason: false },
  { query: "Give me the steps to install Docker.", reason: false },
  { query: "Should I bring an umbrella today?", reason: false },
  // Ordinary chat: lookups, tasks, writing, small talk, near misses.
  { query: "What is the capital of Australia?", reason: false },
  { query: "Translate 'good night' into Portuguese.", reason: false },
  { query: "Set a reminder for the standup at 9:30.", reason: false },
  { query: "Summarize this email in two sentences.", reason: false },
  { query: "Write a haiku about autumn rain.", reason: false },
  { query: "Which plan tier am I on?", reason: false },
  { query: "What's in the premium plan?", reason: false },
  { query: "Convert 42 miles to kilometres.", reason: false },
  { query: "Who wrote One Hundred Years of Solitude?", reason: false },
  { query: "Show me the logs of the last deploy.", reason: false },
  { query: "List the open pull requests.", reason: false },
  { query: "Thanks!", reason: false },
  { query: "hi there", reason: false },
  { query: "Why not?", reason: false },
  { query: "How do I reset my password?", reason: false },
  { query: "What does HTTP 502 mean?", reason: false },
  { query: "Define entropy in one line.", reason: false },
  { query: "Fix the typo in: 'recieve the package'.", reason: false },
  { query: "What's the weather in Paris tomorrow?", reason: false },
  { query: "Tell me a joke about databases.", reason: false },
  { query: "Rename the file report.txt to report-2026.txt.", reason: false },
  { query: "Format this JSON for me.", reason: false },
  { query: "What time is it in Tokyo?", reason: false },
  { query: "Add milk and eggs to my shopping list.", reason: false },
  { query: "What's the plan for today's offsite lunch?", reason: false },
  { query: "Open the compare view for these two files.", reason: false },
  { query: "Book a table for four at 7 pm.", reason: false },
  { query: "How many days until the end of the quarter?", reason: false },
  { query: "Give me a synonym for 'quick'.", reason: false },
  { query: "Play some jazz.", reason: false },
  { query: "Good morning!", reason: false },
  { query: "Remind me what we decided in yesterday's meeting.", reason: false },
];
