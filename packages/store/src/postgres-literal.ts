import { nulReplacement } from "./storable-text.ts";

/** What `pg` exports that inlining needs: its parameter serialiser and its literal quoting. */
export interface PgQuoting {
  /** `pg.utils.prepareValue`: the text `pg` sends for a parameter (null stays null). */
  prepareValue(value: unknown): unknown;
  /** `pg.escapeLiteral`: a quoted string literal (`E'...'` when it holds a backslash). */
  escapeLiteral(text: string): string;
}

const needsEscaping = /['\\]/;

/**
 * A parameter as an SQL literal with the meaning it has as a bound parameter.
 * `pg` sends every parameter as text of unspecified type, which the server
 * types from its context exactly as an untyped quoted literal: so the literal
 * is that same text, quoted (`'42'`, `'true'`, `'{"a":1}'`, a date as `pg`
 * formats it), and `NULL` for null and undefined. Bytes become bytea's hex
 * form. U+0000, which no statement text may hold, becomes U+FFFD (as every
 * string parameter does: `storableParameters`).
 */
export function postgresLiteral(value: unknown, quoting: PgQuoting): string {
  if (value === null || value === undefined) return "NULL";
  if (ArrayBuffer.isView(value)) {
    const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return quoting.escapeLiteral(`\\x${bytes.toString("hex")}`);
  }
  const prepared = typeof value === "string" ? value : quoting.prepareValue(value);
  if (prepared === null || prepared === undefined) return "NULL";
  let text = typeof prepared === "string" ? prepared : String(prepared);
  if (text.includes("\0")) text = text.replaceAll("\0", nulReplacement);
  // Nothing to escape (nearly always): quoted as is, without `escapeLiteral`'s walk over every character.
  return needsEscaping.test(text) ? quoting.escapeLiteral(text) : `'${text}'`;
}

/**
 * A statement's text cut at its `$n` placeholders: `parts[i]` is followed by
 * parameter `indexes[i]` (0-based), and the last part by nothing.
 */
interface Placeholders {
  parts: string[];
  indexes: number[];
}

const identifierCharacter = /[A-Za-z0-9_$\u0080-\uFFFF]/;

/** Where the quoted text, comment or dollar-quoted string starting at `start` ends (the index after it). */
function skipQuoted(sql: string, start: number): number {
  const character = sql[start];
  const next = sql[start + 1];
  if (character === "'" || character === '"') {
    // E'...' strings take backslash escapes; '' (or "") is the quote itself in any string.
    const escapes =
      character === "'" && /[eE]/.test(sql[start - 1] ?? "") && !identifierCharacter.test(sql[start - 2] ?? " ");
    let index = start + 1;
    while (index < sql.length) {
      if (escapes && sql[index] === "\\") index += 2;
      else if (sql[index] === character) {
        if (sql[index + 1] === character) index += 2;
        else return index + 1;
      } else index += 1;
    }
    return sql.length;
  }
  if (character === "-" && next === "-") {
    const end = sql.indexOf("\n", start);
    return end === -1 ? sql.length : end + 1;
  }
  if (character === "/" && next === "*") {
    let depth = 1;
    let index = start + 2;
    while (index < sql.length && depth > 0) {
      if (sql.startsWith("/*", index)) {
        depth += 1;
        index += 2;
      } else if (sql.startsWith("*/", index)) {
        depth -= 1;
        index += 2;
      } else index += 1;
    }
    return index;
  }
  // $tag$ ... $tag$ (the tag may be empty).
  const tag = /^\$([A-Za-z_\u0080-\uFFFF][A-Za-z0-9_\u0080-\uFFFF]*)?\$/.exec(sql.slice(start));
  if (tag === null) return start + 1;
  const end = sql.indexOf(tag[0], start + tag[0].length);
  return end === -1 ? sql.length : end + tag[0].length;
}

/** Cuts `sql` at its placeholders, skipping string literals, quoted identifiers, comments and dollar quotes. */
function placeholdersOf(sql: string): Placeholders {
  const parts: string[] = [];
  const indexes: number[] = [];
  let partStart = 0;
  let index = 0;
  while (index < sql.length) {
    const character = sql[index] as string;
    if (character === "$" && /[0-9]/.test(sql[index + 1] ?? "") && !identifierCharacter.test(sql[index - 1] ?? " ")) {
      let end = index + 1;
      while (end < sql.length && /[0-9]/.test(sql[end] as string)) end += 1;
      parts.push(sql.slice(partStart, index));
      indexes.push(Number(sql.slice(index + 1, end)) - 1);
      partStart = end;
      index = end;
    } else if (
      character === "'" ||
      character === '"' ||
      character === "$" ||
      (character === "-" && sql[index + 1] === "-") ||
      (character === "/" && sql[index + 1] === "*")
    ) {
      // A `$` inside an identifier (`a$b`) starts no dollar quote.
      index = character === "$" && identifierCharacter.test(sql[index - 1] ?? " ") ? index + 1 : skipQuoted(sql, index);
    } else index += 1;
  }
  parts.push(sql.slice(partStart));
  return { parts, indexes };
}

// Per SQL text (a handful of constants in practice; bounded all the same).
const placeholdersBySql = new Map<string, Placeholders>();

/**
 * `sql` with each `$n` replaced by parameter n as a literal
 * ({@link postgresLiteral}): a statement that can travel in a multi-statement
 * simple query. Throws when a placeholder has no parameter.
 */
export function inlineParameters(sql: string, parameters: readonly unknown[], quoting: PgQuoting): string {
  let placeholders = placeholdersBySql.get(sql);
  if (placeholders === undefined) {
    placeholders = placeholdersOf(sql);
    if (placeholdersBySql.size >= 256) placeholdersBySql.clear();
    placeholdersBySql.set(sql, placeholders);
  }
  const { parts, indexes } = placeholders;
  let text = parts[0] as string;
  for (let position = 0; position < indexes.length; position += 1) {
    const index = indexes[position] as number;
    if (index < 0 || index >= parameters.length)
      throw new Error(`inlineParameters: the statement uses $${index + 1} but has ${parameters.length} parameters`);
    text += postgresLiteral(parameters[index], quoting) + parts[position + 1];
  }
  return text;
}
