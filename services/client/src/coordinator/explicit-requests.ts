import type { WeightedPattern } from "./weighted-pattern.ts";

/**
 * Explicit requests for reasoning, as the default policy recognises them (§1.3.1 "explicit triggers"): the user
 * asks why, asks to deduce, plan, compare, decide, hypothesize or diagnose, or for the consequences or the pattern
 * of something. Each is a phrase a user types to ask for an argued answer, not a word that merely appears (a
 * "plan" tier, "compare" in a product name): verbs in their asking forms, "why" with a clause after it. Measured
 * against a labelled set of queries (`routing-labelled-set.ts`, precision and recall asserted in its test).
 */
export const explicitRequestPatterns: WeightedPattern[] = [
  // "Why did the deploy fail?", "why is X slower", "explain why", "how come": a why with a clause after it
  // (not "why not?", "why hello").
  { name: "why", pattern: /\b(?:why|how come)\b(?!\s+(?:not\b|hello\b|hi\b|thank))\s+\S+\s+\S+/i, weight: 0.65 },
  // "Deduce whether ...", "what can we infer", "prove that", "does it follow that".
  {
    name: "deduce",
    pattern:
      /\b(?:deduce|deduction|derive|infer|prove|disprove)\b|\bwhat (?:can|must|should|would) (?:we|i|you|one) (?:conclude|infer)\b|\b(?:does|would) (?:it|that|this) (?:follow|imply)\b|\blogically (?:follows?|implies|entails)\b|\bwhat follows from\b|\bis it (?:necessarily|logically) (?:true|false|the case)\b/i,
    weight: 0.65,
  },
  // "Plan a strategy", "plan out the migration", "make a plan", "draft a roadmap for", "how should we approach".
  {
    name: "plan",
    pattern:
      /(?:^|[.!?;,]\s*|\b(?:please|can you|could you|would you|help (?:me|us)|let's|let us|i need to|we need to|i want to|we want to|how (?:do|should|can|would) (?:i|we)|to)\s+)plan\b(?!\s+(?:tier|tiers|type|name|id|number|price|pricing|details|limit|limits)\b)|\b(?:make|create|draft|write|build|devise|put together|come up with|outline|propose|suggest) (?:a|an|the|me a|us a) (?:\w+[- ]){0,3}(?:plan|strategy|roadmap|rollout)\b|\bhow (?:should|can|could|would|do) (?:i|we) (?:approach|tackle|go about|structure|sequence|phase|stage|roll out|migrate)\b|\b(?:step-by-step|a step by step) (?:plan|approach)\b/i,
    weight: 0.65,
  },
  // "Compare Postgres and SQLite", "React vs Vue for ...", "pros and cons", "trade-offs", "which is better".
  {
    name: "compare",
    pattern:
      /(?<!\bthe )\bcompar(?:e|ing)\b(?!\s+(?:prices?|to the original)\b)|\b(?:versus|vs\.?)\s+\w|\bpros and cons\b|\btrade-?offs?\b|\bwhich (?:\w+ ){0,4}(?:is|would be|are) (?:better|best|worse|faster|cheaper|safer|more \w+|less \w+)\b|\bhow does \w+(?: \w+)? compare\b|\bweigh (?:up |the |our |my )?(?:options|alternatives|risks|choices)\b/i,
    weight: 0.65,
  },
  // "Decide whether", "help me choose between", "should we X or Y", "which one should I pick", "is it worth".
  {
    name: "decide",
    pattern:
      /\b(?:decide|decision) (?:whether|between|on|if|which|about)\b|\b(?:evaluate|assess|determine|work out|figure out) whether\b|\bmake (?:a|the) (?:call|decision) (?:on|about)\b|\bwhat should (?:i|we) do (?:about|with|if|when|next)\b|\bhelp (?:me|us) (?:decide|choose|pick)\b|\bchoose between\b|\bshould (?:i|we) (?:\S+ ){1,8}or (?:\S+ ){0,3}\S+|\bwhich (?:\w+ ){0,3}should (?:i|we) (?:choose|pick|use|go with|adopt|buy|hire)\b|\bis it (?:worth|wise|better|smarter) (?:it )?(?:to )?\w+/i,
    weight: 0.65,
  },
  // "Hypothesize", "diagnose", "root cause", "what caused", "most likely explanation", "what went wrong".
  {
    name: "explain the cause",
    pattern:
      /\bhypothes[ie][sz]e?\b|\bdiagnos(?:e|is|ing)\b|\broot[- ]cause\b|\bwhat (?:caused|causes|is causing|could (?:have )?caused?|might (?:have )?caused?|would cause)\b|\b(?:most likely|best|most plausible|likeliest) (?:explanation|cause|reason)\b|\bexplain (?:why|what caused|the cause)\b|\bwhat went wrong\b|\bfigure out (?:why|what (?:caused|went wrong))\b/i,
    weight: 0.65,
  },
  // "The consequences of", "what would happen if", "the causal chain".
  {
    name: "consequences",
    pattern:
      /\b(?:consequences|implications|knock-on effects|second-order effects) of\b|\bwhat (?:would|will|might|could) happen if\b|\bcausal (?:chain|link|mechanism)\b|\bchain of (?:events|causes)\b/i,
    weight: 0.65,
  },
  // "The underlying pattern", "generalize from", "what do these have in common", "predict the next".
  {
    name: "pattern",
    pattern:
      /\b(?:underlying|common|hidden) pattern\b|\bgenerali[sz]e\b|\bwhat (?:pattern|trend|rule)s? (?:do|does|can|is|are|explains?)\b|\bwhat do (?:these|they|those|all)(?: \w+){0,2} have in common\b|\bpredict the next\b|\bfind (?:the|a) (?:pattern|rule)\b/i,
    weight: 0.65,
  },
  // "Reason through", "think step by step about", "work through this puzzle".
  {
    name: "reason through",
    pattern:
      /\breason (?:through|about|out)\b|\bthink (?:through|it through|step by step)\b|\b(?:solve|work through) (?:this|the|a) (?:\w+ )?(?:puzzle|riddle|logic problem)\b/i,
    weight: 0.65,
  },
];
