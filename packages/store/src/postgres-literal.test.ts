import fc from "fast-check";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inlineParameters, type PgQuoting, postgresLiteral } from "./postgres-literal.ts";
import { storableParameters } from "./storable-text.ts";
import { freshTestDatabase, testDialects } from "./testing/index.ts";

const quoting: PgQuoting = {
  prepareValue: (pg as unknown as { utils: PgQuoting }).utils.prepareValue,
  escapeLiteral: pg.escapeLiteral,
};

describe("inlineParameters: placeholders", () => {
  it("replaces $n outside quotes, identifiers, comments and dollar quotes, as often as it is used", () => {
    const sql =
      "select $1, '$1 it''s', \"col$1\", a$1, E'\\'$1', $tag$ $1 $tag$, $$ $2 $$ -- $1\n, /* $1 /* $2 */ */ $2, $1";
    expect(inlineParameters(sql, ["x", 7], quoting)).toBe(
      "select 'x', '$1 it''s', \"col$1\", a$1, E'\\'$1', $tag$ $1 $tag$, $$ $2 $$ -- $1\n, /* $1 /* $2 */ */ '7', 'x'",
    );
  });

  it("refuses a placeholder without its parameter, naming it", () => {
    expect(() => inlineParameters("select $1, $3", [1, 2], quoting)).toThrow(/\$3 but has 2 parameters/);
  });

  it("writes null, undefined, booleans, numbers, JSON, arrays, dates and bytes as pg would bind them", () => {
    expect(postgresLiteral(null, quoting)).toBe("NULL");
    expect(postgresLiteral(undefined, quoting)).toBe("NULL");
    expect(postgresLiteral(true, quoting)).toBe("'true'");
    expect(postgresLiteral(-1.5e-7, quoting)).toBe("'-1.5e-7'");
    expect(postgresLiteral({ a: "it's \\" }, quoting)).toBe(` E'{"a":"it''s \\\\\\\\"}'`);
    expect(postgresLiteral(["a", null], quoting)).toBe(`'{"a",NULL}'`);
    expect(postgresLiteral(Buffer.from([0, 255]), quoting)).toBe(" E'\\\\x00ff'");
    expect(postgresLiteral("a\u0000b", quoting)).toBe("'a\uFFFDb'");
  });
});

// The literal's meaning is the bound parameter's: the same text comes back, whatever the value holds.
describe.skipIf(!testDialects.includes("postgres"))("inlined literals on Postgres", () => {
  let client: pg.Client;
  beforeAll(async () => {
    const where = await freshTestDatabase("postgres");
    if (!("url" in where)) throw new Error("expected Postgres");
    client = new pg.Client({ connectionString: where.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
  });

  const values = fc.oneof(
    fc.string({ unit: "binary" }),
    fc.string({ unit: fc.constantFrom("'", "\\", "$", "1", '"', "-", "*", "/", ";", "\u0000", "E", "a") }),
    fc.double({ noNaN: false }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.date({ noInvalidDate: true, min: new Date("0100-01-01"), max: new Date("9999-12-31") }),
    fc.jsonValue().map((value) => ({ value })),
    fc.array(fc.string({ unit: "binary" }), { maxLength: 4 }),
  );

  it("reads back as the bound parameter does (text, and typed by its column's cast)", async () => {
    await fc.assert(
      fc.asyncProperty(values, async (value) => {
        const [bound] = storableParameters([value]);
        const expected = await client.query({ text: "select $1::text as v", values: [bound], rowMode: "array" });
        const inlined = inlineParameters("select $1::text as v", [value], quoting);
        const actual = await client.query({ text: `${inlined}; select 1`, rowMode: "array" });
        const first = (actual as unknown as Array<{ rows: unknown[][] }>)[0];
        expect(first?.rows).toEqual(expected.rows);
      }),
      { numRuns: 300 },
    );
  });

  it("stores numbers, booleans, JSON and timestamps in typed columns as the bound parameter does", async () => {
    await client.query(
      "create temporary table typed (n double precision, i bigint, b boolean, j jsonb, t timestamptz, a text[])",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.double({ noNaN: false }),
        fc.integer(),
        fc.boolean(),
        fc.jsonValue(),
        fc.date({ noInvalidDate: true, min: new Date("0100-01-01"), max: new Date("9999-12-31") }),
        fc.array(fc.string({ unit: "binary" }), { maxLength: 3 }),
        async (n, i, b, j, t, a) => {
          const parameters = storableParameters([n, i, b, JSON.stringify(j), t, a]);
          const insert = "insert into typed values ($1, $2, $3, $4, $5, $6)";
          await client.query("delete from typed");
          await client.query(insert, [...parameters]);
          await client.query(inlineParameters(insert, [n, i, b, JSON.stringify(j), t, a], quoting));
          const rows = await client.query({
            text: "select n::text, i, b, j::text, t::text, a::text from typed",
            rowMode: "array",
          });
          expect(rows.rows).toHaveLength(2);
          expect(rows.rows[1]).toEqual(rows.rows[0]);
        },
      ),
      { numRuns: 150 },
    );
  });
});
