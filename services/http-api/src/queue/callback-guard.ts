import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList } from "node:net";
import { invalidField } from "../errors.ts";
import { formatIPv4, formatIPv6, parseAddress } from "./ip-address.ts";

/** A resolved address of a callback host. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** A callback URL that passed the guard, with the addresses to connect to (pinned: no second lookup). */
export interface CallbackTarget {
  url: URL;
  addresses: ResolvedAddress[];
  /** True when the host is on the allowlist (internal addresses allowed). */
  allowlisted: boolean;
}

/** Checks callback URLs so the service cannot be turned against internal addresses (SSRF). */
export interface CallbackGuard {
  /**
   * Resolves the host (every address) and refuses URLs that reach a private,
   * loopback, link-local, unique-local, multicast, reserved or unspecified
   * address, unless the host is on the allowlist.
   * @throws DeliberateError INVALID_INPUT naming `field`.
   */
  check(rawUrl: string, field?: string): Promise<CallbackTarget>;
}

export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

const defaultLookup: HostLookup = async (hostname) => {
  const results = await dnsLookup(hostname, { all: true, verbatim: true });
  return results.map((result) => ({ address: result.address, family: result.family === 6 ? 6 : 4 }));
};

// Everything that is not a public unicast address.
const internal = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", includes 0.0.0.0
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, includes broadcast
] as const) {
  internal.addSubnet(network, prefix, "ipv4");
}
// IPv6 outside the global unicast block 2000::/3 (unspecified, loopback, IPv4-compatible and -translated,
// 64:ff9b:1::/48, discard, unique-local, link-local, site-local, multicast) is refused before this list
// (isInternalAddress); these are the special-purpose blocks inside it.
for (const [network, prefix] of [
  ["2001::", 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID, ...)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 (embeds an IPv4 address)
  ["3fff::", 20], // documentation (RFC 9637)
] as const) {
  internal.addSubnet(network, prefix, "ipv6");
}

/**
 * The IPv4 address an IPv6 address stands for, when it stands for one that the network delivers to as
 * IPv4: IPv4-mapped (`::ffff:a.b.c.d`, what a dual-stack socket connects to) and the NAT64 well-known
 * prefix (`64:ff9b::a.b.c.d`, translated to it by the network). Other forms that embed an IPv4 address
 * (IPv4-compatible `::a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, 6to4) are not global unicast and are
 * refused whatever they embed.
 */
function embeddedIPv4(bytes: Uint8Array): string | undefined {
  const zeros = (from: number, to: number) => bytes.subarray(from, to).every((byte) => byte === 0);
  const mapped = zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff;
  const nat64 = bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12);
  return mapped || nat64 ? formatIPv4(bytes.subarray(12, 16)) : undefined;
}

/**
 * True when `address` is not a public unicast address, in whatever form it is written (IPv4, or IPv6
 * compressed or expanded, upper case, with a zone id or a trailing dotted quad): it is parsed to its bytes
 * first. IPv6 outside the global unicast block (2000::/3) is internal; inside it, the special-purpose
 * blocks are; an IPv6 address that stands for an IPv4 one is decided as that IPv4 address. Text that is
 * not an IP address counts as internal.
 */
export function isInternalAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (parsed === undefined) return true;
  if (parsed.family === 4) return internal.check(formatIPv4(parsed.bytes), "ipv4");
  const embedded = embeddedIPv4(parsed.bytes);
  if (embedded !== undefined) return internal.check(embedded, "ipv4");
  if (((parsed.bytes[0] as number) & 0xe0) !== 0x20) return true;
  return internal.check(formatIPv6(parsed.bytes), "ipv6");
}

/** The canonical text of an IP address (so `0:0::1`, `[::1]` and `::1` are one allowlist entry), else the name in lower case. */
function canonicalHost(host: string): string {
  const parsed = parseAddress(host);
  if (parsed === undefined) return host.toLowerCase();
  return parsed.family === 4 ? formatIPv4(parsed.bytes) : formatIPv6(parsed.bytes);
}

export function createCallbackGuard(options: { allowlist: readonly string[]; lookup?: HostLookup }): CallbackGuard {
  const allowlist = new Set(options.allowlist.map(canonicalHost));
  const lookup = options.lookup ?? defaultLookup;
  const hint =
    "Use a public http(s) URL, or add the host to REASONING_CALLBACK_ALLOWLIST if an internal receiver is intended.";
  return {
    async check(rawUrl, field = "callback_url") {
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        throw invalidField(field, "must be an absolute http(s) URL", hint);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:")
        throw invalidField(field, `scheme ${url.protocol} is not allowed; use http or https`, hint);
      if (url.username !== "" || url.password !== "") {
        throw invalidField(
          field,
          "must not carry credentials (they would be stored)",
          "Verify callbacks with REASONING_CALLBACK_SECRET signatures instead.",
        );
      }
      // An address literal is decided on its canonical form (the URL parser leaves some IPv6 spellings as written).
      const hostname = canonicalHost(url.hostname);
      const allowlisted = allowlist.has(hostname);
      let addresses: ResolvedAddress[];
      const literal = parseAddress(hostname);
      if (literal !== undefined) {
        addresses = [{ address: hostname, family: literal.family }];
      } else {
        try {
          addresses = await lookup(hostname);
        } catch (error) {
          throw invalidField(
            field,
            `host ${hostname} cannot be resolved (${error instanceof Error ? error.message : String(error)})`,
            hint,
          );
        }
        if (addresses.length === 0) throw invalidField(field, `host ${hostname} has no addresses`, hint);
      }
      if (!allowlisted && (hostname === "localhost" || hostname.endsWith(".localhost"))) {
        // RFC 6761: always loopback, whatever a resolver says.
        throw invalidField(field, `host ${hostname} is loopback; callbacks to it are refused`, hint);
      }
      if (!allowlisted) {
        const refused = addresses.filter((entry) => isInternalAddress(entry.address));
        if (refused.length > 0) {
          throw invalidField(
            field,
            `host ${hostname} resolves to an internal address (${refused.map((entry) => entry.address).join(", ")}); callbacks to private, loopback, link-local and reserved addresses are refused`,
            hint,
          );
        }
      }
      return { url, addresses, allowlisted };
    },
  };
}
