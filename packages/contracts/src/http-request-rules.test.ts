import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalHostHeader, charsetOf, isLoopbackHost, unsupportedCharset } from "./http-request-rules.ts";

/** Spellings of the IPv6 address `::<last>`: fully expanded with random padding and case, or compressed. */
const loopbackSpelling = fc
  .record({
    pads: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 8, maxLength: 8 }),
    compressAt: fc.integer({ min: -1, max: 6 }),
    upper: fc.boolean(),
    bracket: fc.boolean(),
  })
  .map(({ pads, compressAt, upper, bracket }) => {
    const groups = pads.map((pad, index) => (index === 7 ? "1".padStart(pad, "0") : "0".repeat(pad)));
    const text = compressAt < 0 ? groups.join(":") : `${groups.slice(0, compressAt).join(":")}::${groups[7]}`;
    const cased = upper ? text.toUpperCase() : text;
    return bracket ? `[${cased}]` : cased;
  });

describe("isLoopbackHost (both services)", () => {
  it("knows the loopback names in any case and the IPv6 loopback in any spelling", () => {
    for (const host of [
      "localhost",
      "LOCALHOST",
      "app.localhost",
      "127.0.0.1",
      "127.255.0.9",
      "::1",
      "[::1]",
      "0:0:0:0:0:0:0:1",
      "::ffff:127.0.0.1",
      "::FFFF:7F00:1",
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of [
      "example.com",
      "localhost.example.com",
      "10.0.0.1",
      "128.0.0.1",
      "::2",
      "::ffff:10.0.0.1",
      "::ffff:0:127.0.0.1",
      "fe80::1",
      "127.0.0.256",
      "",
    ])
      expect(isLoopbackHost(host), host).toBe(false);
    fc.assert(
      fc.property(loopbackSpelling, (spelling) => {
        expect(isLoopbackHost(spelling), spelling).toBe(true);
      }),
    );
  });
});

describe("canonicalHostHeader", () => {
  it("lower-cases names, compresses IPv6 and keeps the port; refuses what is not host[:port]", () => {
    expect(canonicalHostHeader("LOCALHOST:9000")).toBe("localhost:9000");
    expect(canonicalHostHeader("[0:0:0:0:0:0:0:1]:9000")).toBe("[::1]:9000");
    expect(canonicalHostHeader("Example.COM")).toBe("example.com");
    expect(canonicalHostHeader("127.0.0.1:80")).toBe("127.0.0.1:80");
    for (const bad of ["", "a b", "x/y", "user@host", "host?x", "[zz]"])
      expect(canonicalHostHeader(bad), bad).toBeUndefined();
    fc.assert(
      fc.property(loopbackSpelling, fc.integer({ min: 1, max: 65535 }), (spelling, port) => {
        const bracketed = spelling.startsWith("[") ? spelling : `[${spelling}]`;
        expect(canonicalHostHeader(`${bracketed}:${port}`)).toBe(`[::1]:${port}`);
      }),
    );
  });
});

describe("charsets of JSON bodies", () => {
  it("takes UTF-8 or none, refuses any other charset naming it", () => {
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "application/json;charset=UTF-8",
      'application/json; charset="utf8"',
      undefined,
    ])
      expect(unsupportedCharset(type), String(type)).toBeUndefined();
    expect(charsetOf('application/json; Charset="UTF-16"')).toBe("utf-16");
    for (const charset of ["utf-16", "utf-16le", "iso-8859-1", "windows-1252", "us-ascii"])
      expect(unsupportedCharset(`application/json; charset=${charset}`)).toContain(`charset=${charset}`);
  });
});
