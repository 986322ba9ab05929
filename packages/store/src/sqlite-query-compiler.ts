import { type LimitNode, SqliteQueryCompiler, ValueNode } from "kysely";

/**
 * Kysely's SQLite compiler, with a LIMIT parameter written `+?`. SQLite's
 * planner reads the value bound to a bare `LIMIT ?`, so the statement is marked
 * expired whenever that parameter is bound and is compiled again on every run:
 * a cached statement of a paged read cost two to three times what it does with
 * the limit behind a unary plus, which the planner does not read. Same rows,
 * same errors (a value that is not an integer is still a datatype mismatch).
 */
export class SqliteLimitQueryCompiler extends SqliteQueryCompiler {
  protected override visitLimit(node: LimitNode): void {
    if (!ValueNode.is(node.limit)) {
      super.visitLimit(node);
      return;
    }
    this.append("limit +");
    this.visitNode(node.limit);
  }
}
