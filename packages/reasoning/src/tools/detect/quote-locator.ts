/**
 * Finds a quotation (from a model) in the text it claims to quote, tolerating
 * only presentation differences: letter case, runs of whitespace, curly vs
 * straight quotes, dash variants, surrounding quotation marks, and "..." / "…"
 * standing for omitted text between fragments (matched in order). Anything a
 * paraphrase would change (words, punctuation, order) makes it not found.
 */

/** Where a quotation was found: offsets into the original text (end exclusive) and the exact text there. */
export interface QuoteMatch {
  start: number;
  end: number;
  /** The original text of each fragment, joined with " … " when the quote had omissions. */
  text: string;
}

export type QuoteLookup = { found: true; match: QuoteMatch } | { found: false; reason: string };

/** Fewest non-space characters a quote must have to count as evidence (a word or two, not a letter). */
export const minimumQuoteCharacters = 4;

const characterEquivalents: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u00AB": '"',
  "\u00BB": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u00A0": " ",
};

const ignored = new Set(["\u200B", "\u200C", "\u200D", "\uFEFF", "\u00AD"]);

interface NormalizedText {
  text: string;
  /** `origin[i]` = index in the original text of normalized character i. */
  origin: number[];
}

function normalize(text: string): NormalizedText {
  let normalized = "";
  const origin: number[] = [];
  let pendingSpace = -1;
  for (let index = 0; index < text.length; index += 1) {
    const raw = text[index] as string;
    if (ignored.has(raw)) continue;
    const character = (characterEquivalents[raw] ?? raw).toLowerCase();
    if (/\s/.test(character)) {
      if (pendingSpace < 0) pendingSpace = index;
      continue;
    }
    if (pendingSpace >= 0) {
      if (normalized.length > 0) {
        normalized += " ";
        origin.push(pendingSpace);
      }
      pendingSpace = -1;
    }
    // toLowerCase can lengthen a character (e.g. "İ"); every produced unit maps back to it.
    for (const unit of character) {
      normalized += unit;
      origin.push(index);
    }
  }
  return { text: normalized, origin };
}

const quoteMarks = /^["'`]+|["'`]+$/g;

/** Splits a quote on ellipses into normalized fragments, stripping surrounding quotation marks. */
function fragmentsOf(quote: string): string[] {
  const unified = quote.replaceAll("\u2026", "...");
  return unified
    .split(/\.{3,}/)
    .map((fragment) => normalize(fragment).text.replace(quoteMarks, "").trim())
    .filter((fragment) => fragment.length > 0);
}

/**
 * Locates `quote` in `text`. Fragments separated by an ellipsis must occur in
 * order, without overlapping; the earliest such placement is reported.
 */
export function locateQuote(text: string, quote: string): QuoteLookup {
  const fragments = fragmentsOf(quote);
  const characters = fragments.reduce((total, fragment) => total + fragment.replaceAll(" ", "").length, 0);
  if (characters < minimumQuoteCharacters) {
    return {
      found: false,
      reason: `the quoted evidence is too short to check (fewer than ${minimumQuoteCharacters} characters)`,
    };
  }
  const source = normalize(text);
  const parts: string[] = [];
  let from = 0;
  let start = -1;
  let end = -1;
  for (const fragment of fragments) {
    const at = source.text.indexOf(fragment, from);
    if (at < 0) {
      const shown = fragment.length > 60 ? `${fragment.slice(0, 60)}…` : fragment;
      return {
        found: false,
        reason:
          from === 0
            ? `"${shown}" does not occur in the analysed text`
            : `"${shown}" does not occur after the previous quoted fragment`,
      };
    }
    const originalStart = source.origin[at] as number;
    const originalEnd = (source.origin[at + fragment.length - 1] as number) + 1;
    if (start < 0) start = originalStart;
    end = originalEnd;
    parts.push(text.slice(originalStart, originalEnd));
    from = at + fragment.length;
  }
  return { found: true, match: { start, end, text: parts.join(" … ") } };
}
