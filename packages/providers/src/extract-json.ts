/** A JSON value found in a model's answer, or why none could be found. */
export type JsonCandidate = { ok: true; value: unknown } | { ok: false; problem: string };

/** Bounds the prose scan so a pathological answer cannot cost quadratic time. */
const maxEmbeddedStarts = 32;

const fencePattern = /```[ \t]*(?:json5?|jsonc|JSON)?[ \t]*\r?\n?([\s\S]*?)```/g;

/**
 * Finds the JSON value in a model's text answer. Accepts plain JSON, JSON in
 * a ```json fence, and one JSON object or array surrounded by prose; never
 * guesses beyond that (no repair of broken JSON: that is what the repair
 * round is for).
 */
export function extractJson(text: string): JsonCandidate {
  const trimmed = text.trim();
  if (trimmed.length === 0) return { ok: false, problem: "The answer was empty; a JSON object was expected." };
  const direct = tryParse(trimmed);
  if (direct.ok) return direct;
  for (const match of trimmed.matchAll(fencePattern)) {
    const fenced = tryParse((match[1] ?? "").trim());
    if (fenced.ok) return fenced;
  }
  let starts = 0;
  for (let start = 0; start < trimmed.length && starts < maxEmbeddedStarts; start += 1) {
    const character = trimmed[start];
    if (character !== "{" && character !== "[") continue;
    starts += 1;
    const end = findBalancedEnd(trimmed, start);
    if (end === -1) continue;
    const embedded = tryParse(trimmed.slice(start, end + 1));
    if (embedded.ok) return embedded;
  }
  return { ok: false, problem: `The answer is not valid JSON (${direct.problem}).` };
}

function tryParse(text: string): JsonCandidate {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, problem: error instanceof Error ? error.message : String(error) };
  }
}

/** Index of the bracket closing the one at `start`, skipping strings; -1 when unbalanced. */
function findBalancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index += 1) {
    const character = text[index];
    if (inString) {
      if (character === "\\") index += 1;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === "{" || character === "[") depth += 1;
    else if (character === "}" || character === "]") {
      depth -= 1;
      if (depth === 0) return index;
      if (depth < 0) return -1;
    }
  }
  return -1;
}
