import { type LimitNode, SqliteQueryCompiler, ValueNode } from "kysely";

/**
 * Kysely's SQLite compiler, with a LIMIT value written `? + 0`. SQLite's planner
 * reads the value bound to a bare `LIMIT ?`, so the statement is marked expired
 * whenever that parameter is bound and is compiled again on every run: a cached
 * statement of a paged read cost two to three times what it does with the limit
 * as an expression, which the planner does not read (same rows, same errors).
 */
export class SqliteLimitQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    super.visitLimit(node);
    if (ValueNode.is(node.limit)) this.append(" + 0");
  }
}
