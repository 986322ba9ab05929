import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import { invalidField } from "../errors.ts";

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
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["::", 96], // IPv4-compatible (deprecated; embeds an IPv4 address)
  ["64:ff9b:1::", 48], // local-use IPv4/IPv6 translation
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments (Teredo, ...)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4 (embeds an IPv4 address)
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  internal.addSubnet(network, prefix, "ipv6");
}

/** The IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address. */
function embeddedIPv4(address: string): string | undefined {
  const lowered = address.toLowerCase();
  for (const prefix of ["::ffff:", "64:ff9b::"]) {
    if (!lowered.startsWith(prefix)) continue;
    const rest = lowered.slice(prefix.length);
    if (isIP(rest) === 4) return rest;
    const groups = rest.split(":");
    if (groups.length === 2 && groups.every((group) => /^[0-9a-f]{1,4}$/.test(group))) {
      const value = (parseInt(groups[0] as string, 16) << 16) + parseInt(groups[1] as string, 16);
      return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join(".");
    }
  }
  return undefined;
}

/** True when `address` is not a public unicast address. */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return internal.check(address, "ipv4");
  if (family === 6) {
    const embedded = embeddedIPv4(address);
    if (embedded !== undefined) return internal.check(embedded, "ipv4");
    return internal.check(address, "ipv6");
  }
  return true;
}

export function createCallbackGuard(options: { allowlist: readonly string[]; lookup?: HostLookup }): CallbackGuard {
  const allowlist = new Set(options.allowlist.map((host) => host.toLowerCase()));
  const lookup = options.lookup ?? defaultLookup;
  const hint = "Use a public http(s) URL, or add the host to REASONING_CALLBACK_ALLOWLIST if an internal receiver is intended.";
  return {
    async check(rawUrl, field = "callback_url") {
      let url: URL;
      try {
        url = new URL(rawUrl);
      } catch {
        throw invalidField(field, "must be an absolute http(s) URL", hint);
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidField(field, `scheme ${url.protocol} is not allowed; use http or https`, hint);
      if (url.username !== "" || url.password !== "") {
        throw invalidField(field, "must not carry credentials (they would be stored)", "Verify callbacks with REASONING_CALLBACK_SECRET signatures instead.");
      }
      const hostname = url.hostname.startsWith("[") ? url.hostname.slice(1, -1).toLowerCase() : url.hostname.toLowerCase();
      const allowlisted = allowlist.has(hostname);
      let addresses: ResolvedAddress[];
      const literal = isIP(hostname);
      if (literal !== 0) {
        addresses = [{ address: hostname, family: literal === 6 ? 6 : 4 }];
      } else {
        try {
          addresses = await lookup(hostname);
        } catch (error) {
          throw invalidField(field, `host ${hostname} cannot be resolved (${error instanceof Error ? error.message : String(error)})`, hint);
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
