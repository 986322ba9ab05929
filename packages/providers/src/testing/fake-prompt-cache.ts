import { createHash } from "node:crypto";

/**
 * A request's prompt as the fake prompt cache sees it.
 * - `breakpoints` (Anthropic): the prompt's blocks in cache order (tools,
 *   system blocks, message blocks), each marked when it carries `cache_control`.
 * - `prefix` (OpenAI): the prompt's parts in order; any prefix seen before is
 *   read from the cache, no marks needed.
 */
export type FakeCachePrompt =
  | { kind: "breakpoints"; segments: Array<{ text: string; breakpoint: boolean }> }
  | { kind: "prefix"; parts: string[] };

/** Token figures of one request: the whole prompt, and the parts read from and written to the cache. */
export interface FakeCacheOutcome {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The API's limit on `cache_control` blocks per request. */
export const maximumFakeCacheBreakpoints = 4;
/** How many blocks before a breakpoint the Anthropic API looks for an earlier cache entry. */
const lookbackBlocks = 20;

/** Estimated tokens of a text: 4 characters a token (the fake server's one measure). */
export function fakeTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Number of cache breakpoints in a prompt (0 for automatic prefix caching). */
export function countBreakpoints(prompt: FakeCachePrompt): number {
  return prompt.kind === "breakpoints" ? prompt.segments.filter((segment) => segment.breakpoint).length : 0;
}

/**
 * The fake server's prompt cache, per model, imitating both providers:
 *
 * - Anthropic: a request writes the prefix ending at each of its breakpoints;
 *   it reads the longest cached prefix that ends at one of its breakpoints or
 *   up to 20 blocks before one. `cacheWriteTokens` is the prefix up to the
 *   last breakpoint minus what was read. Prefixes shorter than
 *   `minimumTokens` are never cached (the real minimum is 1,024–4,096 tokens
 *   depending on the model).
 * - OpenAI: every prompt is remembered; the longest common prefix (in
 *   characters) with an earlier prompt of the same model is read from the
 *   cache, when it reaches `minimumTokens` (the real minimum is 1,024).
 */
export class FakePromptCache {
  readonly #minimumTokens: number;
  readonly #prefixes = new Set<string>();
  /** Each model's earlier prompts, sorted. */
  readonly #prompts = new Map<string, string[]>();

  constructor(minimumTokens: number) {
    this.#minimumTokens = minimumTokens;
  }

  /** Measures one answered request and records what it writes. */
  measure(model: string, prompt: FakeCachePrompt): FakeCacheOutcome {
    return prompt.kind === "breakpoints"
      ? this.#breakpoints(model, prompt.segments)
      : this.#prefix(model, prompt.parts);
  }

  clear(): void {
    this.#prefixes.clear();
    this.#prompts.clear();
  }

  #breakpoints(model: string, segments: Array<{ text: string; breakpoint: boolean }>): FakeCacheOutcome {
    const hash = createHash("sha256").update(model);
    const keys: string[] = [];
    const prefixTokens: number[] = [];
    let total = 0;
    for (const segment of segments) {
      hash.update(`\u0000${segment.text}`);
      keys.push(hash.copy().digest("hex"));
      total += fakeTokens(segment.text);
      prefixTokens.push(total);
    }
    const breakpoints = segments.flatMap((segment, index) => (segment.breakpoint ? [index] : []));
    let cacheReadTokens = 0;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= Math.max(0, breakpoint - lookbackBlocks + 1); index -= 1) {
        if (this.#prefixes.has(keys[index] ?? "")) {
          cacheReadTokens = Math.max(cacheReadTokens, prefixTokens[index] ?? 0);
          break;
        }
      }
    }
    let cacheWriteTokens = 0;
    for (const breakpoint of breakpoints) {
      if ((prefixTokens[breakpoint] ?? 0) >= this.#minimumTokens) this.#prefixes.add(keys[breakpoint] ?? "");
    }
    const last = breakpoints.at(-1);
    if (last !== undefined) {
      const lastTokens = prefixTokens[last] ?? 0;
      if (lastTokens >= this.#minimumTokens && lastTokens > cacheReadTokens)
        cacheWriteTokens = lastTokens - cacheReadTokens;
    }
    return { inputTokens: total, cacheReadTokens, cacheWriteTokens };
  }

  #prefix(model: string, parts: string[]): FakeCacheOutcome {
    const prompt = parts.join("\u0000");
    const inputTokens = parts.reduce((sum, part) => sum + fakeTokens(part), 0);
    const earlier = this.#prompts.get(model) ?? [];
    const common = longestCommonPrefixWithAny(earlier, prompt);
    const cached = Math.min(inputTokens, Math.floor(common / 4));
    earlier.splice(sortedIndex(earlier, prompt), 0, prompt);
    this.#prompts.set(model, earlier);
    return {
      inputTokens,
      cacheReadTokens: cached >= Math.max(1, this.#minimumTokens) ? cached : 0,
      cacheWriteTokens: 0,
    };
  }
}

/** Where `text` goes in `sorted` (ascending by UTF-16 code units, as `<` compares strings). */
function sortedIndex(sorted: readonly string[], text: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) < text) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The longest common prefix of `text` with any string of `sorted`: in sorted order the strings sharing the
 * longest prefix with `text` sit next to where it would go, so its two neighbours are enough (the fake
 * server answered every request by comparing with every earlier prompt: quadratic over a test file).
 */
export function longestCommonPrefixWithAny(sorted: readonly string[], text: string): number {
  const index = sortedIndex(sorted, text);
  const before = index > 0 ? commonPrefixLength(sorted[index - 1] as string, text) : 0;
  const after = index < sorted.length ? commonPrefixLength(sorted[index] as string, text) : 0;
  return Math.max(before, after);
}

export function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let index = 0;
  while (index < limit && a.charCodeAt(index) === b.charCodeAt(index)) index += 1;
  return index;
}
