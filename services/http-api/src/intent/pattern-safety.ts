import { setFlagsFromString } from "node:v8";

/**
 * Offered tools' `pattern`s run on text the caller chooses (see
 * `unsafePatterns` in @deliberate/contracts): V8 runs a regular expression
 * that backtracks too much again on its linear-time engine (same answer).
 * Set once, when this module loads; it changes nothing for expressions that
 * do not backtrack excessively.
 */
setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
