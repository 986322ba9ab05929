import type { IncomingMessage } from "node:http";
import { canonicalizeHostHeader } from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHostCanonicalizer } from "./http-server.ts";

/** A node request with only a Host header, as the canonicalizers read and rewrite it. */
const requestWith = (host: string | undefined) => ({ headers: host === undefined ? {} : { host } }) as IncomingMessage;

/** What canonicalizeHostHeader (not remembered) makes of `host`. */
function uncached(host: string | undefined): string | undefined {
  const request = requestWith(host);
  canonicalizeHostHeader(request);
  return request.headers.host;
}

describe("createHostCanonicalizer", () => {
  const hosts = fc.oneof(
    fc.constantFrom("LOCALHOST:9", "localhost", "[0:0:0:0:0:0:0:1]:8080", "Example.COM", "127.0.0.1:80", "a b", ""),
    fc.string({ maxLength: 30 }),
    fc.domain().map((name) => `${name.toUpperCase()}:${name.length}`),
  );

  it("gives canonicalizeHostHeader's answer, the first time and from memory, past its bound too", () => {
    const canonicalize = createHostCanonicalizer();
    fc.assert(
      fc.property(fc.array(hosts, { minLength: 1, maxLength: 200 }), (sent) => {
        for (const host of [...sent, ...sent]) {
          const request = requestWith(host);
          canonicalize(request);
          expect(request.headers.host).toBe(uncached(host));
        }
      }),
    );
  });

  it("leaves a request without a Host alone", () => {
    const request = requestWith(undefined);
    createHostCanonicalizer()(request);
    expect("host" in request.headers).toBe(false);
  });
});
