import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCallbackGuard, isInternalAddress } from "./callback-guard.ts";
import { formatIPv6, parseAddress } from "./ip-address.ts";

/** Some spelling of the IPv6 address of `bytes`: any zero run compressed or none, groups padded and cased at random, maybe a dotted tail, maybe a zone id. */
function spelling(options: { zone: boolean }) {
  return fc
    .record({
      compress: fc.nat(),
      pads: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
      upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      dotted: fc.boolean(),
      zone: options.zone
        ? fc.option(fc.constantFrom("%eth0", "%1", "%lo"), { nil: undefined })
        : fc.constant(undefined),
    })
    .map((choice) => (bytes: Uint8Array) => {
      const groups = Array.from(
        { length: 8 },
        (_, index) => ((bytes[index * 2] as number) << 8) | (bytes[index * 2 + 1] as number),
      );
      const last = choice.dotted ? 6 : 8;
      const texts = groups.slice(0, last).map((group, index) => {
        const hex = group
          .toString(16)
          .padStart(Math.min(4, group.toString(16).length + (choice.pads[index] as number)), "0");
        return choice.upper[index] ? hex.toUpperCase() : hex;
      });
      // Zero runs that may be compressed (within the hex groups).
      const runs: Array<[number, number]> = [];
      for (let start = 0; start < last; start += 1) {
        for (let end = start + 1; end <= last && groups[end - 1] === 0; end += 1) runs.push([start, end]);
      }
      const run = runs.length > 0 && choice.compress % 3 !== 0 ? runs[choice.compress % runs.length] : undefined;
      const quad = choice.dotted ? Array.from(bytes.subarray(12, 16)).join(".") : undefined;
      let text: string;
      if (run === undefined) text = [...texts, ...(quad ? [quad] : [])].join(":");
      else {
        const right = [...texts.slice(run[1]), ...(quad ? [quad] : [])];
        text = `${texts.slice(0, run[0]).join(":")}::${right.join(":")}`;
      }
      return `${text}${choice.zone ?? ""}`;
    });
}

const byteArrays = (length: number) => fc.uint8Array({ minLength: length, maxLength: length });
/** IPv4 addresses in the internal blocks (loopback, private, link-local, CGNAT, this network). */
const internalIPv4 = fc.oneof(
  byteArrays(3).map((rest) => Uint8Array.of(127, ...rest)),
  byteArrays(3).map((rest) => Uint8Array.of(10, ...rest)),
  byteArrays(2).map((rest) => Uint8Array.of(192, 168, ...rest)),
  byteArrays(2).map((rest) => Uint8Array.of(169, 254, ...rest)),
  fc
    .tuple(fc.integer({ min: 16, max: 31 }), byteArrays(2))
    .map(([second, rest]) => Uint8Array.of(172, second, ...rest)),
  byteArrays(3).map((rest) => Uint8Array.of(0, ...rest)),
);
const mapped = (v4: Uint8Array) => Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4);
const compatible = (v4: Uint8Array) => Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ...v4);
const translated = (v4: Uint8Array) => Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, ...v4);

describe("callback guard", () => {
  it("classifies internal and public addresses", () => {
    const internal = [
      "127.0.0.1",
      "127.8.9.10",
      "10.0.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd12:3456::1",
      "fc00::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "2001:db8::1",
      "::7f00:1",
      "::a9fe:a9fe",
      "64:ff9b:1::a00:1",
    ];
    const external = ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"];
    for (const address of internal) expect(isInternalAddress(address), address).toBe(true);
    for (const address of external) expect(isInternalAddress(address), address).toBe(false);
  });

  it("refuses a host if any of its addresses is internal, and checks every address", async () => {
    const guard = createCallbackGuard({
      allowlist: [],
      lookup: async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "fd00::5", family: 6 },
      ],
    });
    await expect(guard.check("https://rebind.example/cb")).rejects.toMatchObject({
      code: "INVALID_INPUT",
      issues: [{ field: "callback_url" }],
    });
  });

  it("lets allowlisted hosts through and pins the resolved addresses", async () => {
    const guard = createCallbackGuard({
      allowlist: ["127.0.0.1", "hooks.local"],
      lookup: async () => [{ address: "10.9.8.7", family: 4 }],
    });
    await expect(guard.check("http://127.0.0.1:8080/x")).resolves.toMatchObject({
      allowlisted: true,
      addresses: [{ address: "127.0.0.1", family: 4 }],
    });
    await expect(guard.check("http://hooks.local/x")).resolves.toMatchObject({
      allowlisted: true,
      addresses: [{ address: "10.9.8.7" }],
    });
    await expect(guard.check("http://[::1]:8080/x")).rejects.toThrow(/internal address/);
  });

  it("names unresolvable hosts and bad URLs", async () => {
    const guard = createCallbackGuard({
      allowlist: [],
      lookup: async () => {
        throw new Error("getaddrinfo ENOTFOUND");
      },
    });
    await expect(guard.check("https://nowhere.invalid/")).rejects.toThrow(/cannot be resolved/);
    await expect(guard.check("not a url")).rejects.toThrow(/absolute http\(s\) URL/);
    await expect(guard.check("file:///etc/passwd")).rejects.toThrow(/scheme file:/);
  });

  it("reads every spelling of an IPv6 address as the same bytes", () => {
    fc.assert(
      fc.property(byteArrays(16), spelling({ zone: true }), (bytes, spell) => {
        const text = spell(bytes);
        const parsed = parseAddress(text);
        expect(parsed?.family, text).toBe(6);
        expect(formatIPv6(parsed?.bytes as Uint8Array), text).toBe(formatIPv6(bytes));
        expect(isInternalAddress(text), text).toBe(isInternalAddress(formatIPv6(bytes)));
      }),
      { numRuns: 500 },
    );
  });

  it("decides an IPv4-mapped address as its IPv4 address, and refuses IPv4-compatible and -translated ones whatever they embed", () => {
    fc.assert(
      fc.property(byteArrays(4), spelling({ zone: true }), (v4, spell) => {
        const dotted = Array.from(v4).join(".");
        expect(isInternalAddress(spell(mapped(v4))), spell(mapped(v4))).toBe(isInternalAddress(dotted));
        expect(isInternalAddress(spell(compatible(v4))), spell(compatible(v4))).toBe(true);
        expect(isInternalAddress(spell(translated(v4))), spell(translated(v4))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses IPv6 outside global unicast (2000::/3) in any spelling", () => {
    const nonGlobal = byteArrays(16).filter(
      (bytes) =>
        ((bytes[0] as number) & 0xe0) !== 0x20 &&
        !(bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b),
    );
    fc.assert(
      fc.property(nonGlobal, spelling({ zone: true }), (bytes, spell) => {
        const isMapped = bytes.subarray(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
        fc.pre(!isMapped);
        expect(isInternalAddress(spell(bytes)), spell(bytes)).toBe(true);
      }),
    );
  });

  it("refuses callback URLs whose host is an internal IPv4 address in any IPv6 form, under every allowlist setting", async () => {
    const guards = [[], ["127.0.0.1"], ["localhost", "hooks.example"], ["10.0.0.1", "192.168.1.1"]].map((allowlist) =>
      createCallbackGuard({ allowlist, lookup: async () => [] }),
    );
    await fc.assert(
      fc.asyncProperty(
        internalIPv4,
        fc.constantFrom(mapped, compatible, translated),
        spelling({ zone: false }),
        async (v4, form, spell) => {
          const url = `http://[${spell(form(v4))}]:8080/callback`;
          for (const guard of guards)
            await expect(guard.check(url), url).rejects.toMatchObject({
              code: "INVALID_INPUT",
              issues: [{ field: "callback_url" }],
            });
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses the forms the issue named, and allowlists an address in any spelling", async () => {
    const guard = createCallbackGuard({ allowlist: ["127.0.0.1"], lookup: async () => [] });
    for (const host of [
      "[::ffff:0:127.0.0.1]",
      "[::ffff:127.0.0.1]",
      "[0:0:0:0:0:ffff:7f00:1]",
      "[::127.0.0.1]",
      "[0000:0000:0000:0000:0000:0000:0000:0001]",
      "[::FFFF:7F00:1]",
      "[0:0:0:0:0:0:0:1]",
    ]) {
      await expect(guard.check(`http://${host}/cb`), host).rejects.toThrow(/internal address/);
    }
    for (const address of [
      "fe80::1%eth0",
      "FE80::1%25eth0",
      "::ffff:0:7f00:1",
      "64:ff9b::7f00:1",
      "0:0:0:0:0:ffff:169.254.169.254",
    ])
      expect(isInternalAddress(address), address).toBe(true);
    expect(isInternalAddress("64:ff9b::808:808")).toBe(false);
    const loopbackAllowed = createCallbackGuard({ allowlist: ["0:0:0:0:0:0:0:1"], lookup: async () => [] });
    await expect(loopbackAllowed.check("http://[::1]:9000/cb")).resolves.toMatchObject({
      allowlisted: true,
      addresses: [{ address: "::1", family: 6 }],
    });
  });
});
