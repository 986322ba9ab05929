import { DeliberateError, type FieldIssue } from "@deliberate/base";

/** Most issues one error lists; the rest are summarised by count so a bad 1,000 x 1,000 matrix stays readable. */
const maxListedIssues = 20;

/**
 * Collects field-level problems while validating one input, then throws them
 * together as one `INVALID_INPUT` {@link DeliberateError}. Every algorithm in
 * this folder validates through it, so callers see every problem at once,
 * each naming its field (dotted path, e.g. `criteria.1.weight`) and how to fix it.
 * Internal to this folder (not exported from its index).
 */
export class IssueList {
  readonly issues: FieldIssue[] = [];
  private overflow = 0;

  add(field: string, message: string): void {
    if (this.issues.length < maxListedIssues) this.issues.push({ field, message });
    else this.overflow += 1;
  }

  get isEmpty(): boolean {
    return this.issues.length === 0;
  }

  /** Throws the collected issues, if any. */
  throwIfAny(hint?: string): void {
    if (this.issues.length === 0) return;
    const listed = this.issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
    const more = this.overflow > 0 ? `; and ${this.overflow} more` : "";
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Invalid input: ${listed}${more}.`,
      issues: this.issues,
      ...(hint === undefined ? {} : { hint }),
    });
  }

  /** Records a problem if `value` is not a finite number; returns whether it is one. */
  finite(value: unknown, field: string): value is number {
    if (typeof value === "number" && Number.isFinite(value)) return true;
    this.add(field, `must be a finite number, got ${describeValue(value)}`);
    return false;
  }

  /** Records a problem unless `value` is a finite number in [min, max]. */
  inRange(value: unknown, field: string, min: number, max: number): value is number {
    if (!this.finite(value, field)) return false;
    if (value >= min && value <= max) return true;
    this.add(field, `must be between ${min} and ${max}, got ${value}`);
    return false;
  }

  /** Records a problem unless `value` is an integer in [min, max]. */
  integer(value: unknown, field: string, min: number, max: number = Number.MAX_SAFE_INTEGER): value is number {
    if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) return true;
    this.add(field, `must be an integer between ${min} and ${max}, got ${describeValue(value)}`);
    return false;
  }

  /** Records a problem unless `value` is an array with at least `minLength` items. */
  array(value: unknown, field: string, minLength = 0): value is readonly unknown[] {
    if (!Array.isArray(value)) {
      this.add(field, `must be an array, got ${describeValue(value)}`);
      return false;
    }
    if (value.length < minLength) {
      this.add(field, `must have at least ${minLength} item${minLength === 1 ? "" : "s"}, got ${value.length}`);
      return false;
    }
    return true;
  }

  /**
   * Records a problem for every name that is not a non-empty string or repeats
   * an earlier one; returns the index of each valid name's first occurrence.
   */
  uniqueNames(names: readonly unknown[], fieldOf: (index: number) => string): Map<string, number> {
    const seen = new Map<string, number>();
    names.forEach((name, index) => {
      if (!this.name(name, fieldOf(index))) return;
      const first = seen.get(name);
      if (first === undefined) seen.set(name, index);
      else this.add(fieldOf(index), `duplicates ${fieldOf(first)} (${JSON.stringify(name)}); names must be unique`);
    });
    return seen;
  }

  /** Records a problem unless `value` is a non-empty string. */
  name(value: unknown, field: string): value is string {
    if (typeof value === "string" && value.length > 0) return true;
    this.add(field, `must be a non-empty string, got ${describeValue(value)}`);
    return false;
  }
}

/** Throws one INVALID_INPUT error for a single field. @internal */
export function invalidInput(field: string, message: string, hint?: string): never {
  const issues = new IssueList();
  issues.add(field, message);
  issues.throwIfAny(hint);
  throw new Error("unreachable");
}

/**
 * Returns `value` when it is finite; otherwise throws INVALID_INPUT naming
 * `field` (the input the overflowing result came from), so an intermediate
 * result that overflowed (e.g. a sum of scores near 1e308) never reaches an
 * output as NaN or Infinity. @internal
 */
export function requireFiniteResult(value: number, field: string, what: string, hint?: string): number {
  if (Number.isFinite(value)) return value;
  return invalidInput(
    field,
    `${what} is ${describeValue(value)}: the numbers given overflow double precision (largest finite value about 1.8e308)`,
    hint,
  );
}

/** Short, safe rendering of an offending value for an error message. @internal */
export function describeValue(value: unknown): string {
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : String(value);
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  if (Array.isArray(value)) return `an array of ${value.length}`;
  return typeof value;
}
