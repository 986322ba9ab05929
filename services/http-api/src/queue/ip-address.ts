import { isIP } from "node:net";

/**
 * An IP address in one canonical form, whatever way it was written: IPv4 as four octets, IPv6 as sixteen
 * bytes (compressed or expanded groups, leading zeros, upper case, a trailing dotted quad, a zone id such as
 * `%eth0` dropped). What the callback guard decides on, so no spelling of an address escapes it.
 */
export type ParsedAddress = { family: 4; bytes: Uint8Array } | { family: 6; bytes: Uint8Array };

function parseIPv4(text: string): Uint8Array | undefined {
  if (isIP(text) !== 4) return undefined;
  return Uint8Array.from(text.split(".").map(Number));
}

/** Sixteen bytes of an IPv6 text, or undefined when it is not one. */
function parseIPv6(text: string): Uint8Array | undefined {
  // A zone id (`fe80::1%eth0`, `%25eth0` as URLs escape it) names an interface, not part of the address.
  const withoutZone = text.replace(/%.*$/s, "");
  if (isIP(withoutZone) !== 6) return undefined;
  let head = withoutZone.toLowerCase();
  const tail: number[] = [];
  // A trailing dotted quad is the last 32 bits.
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (dotted) {
    const quad = parseIPv4(dotted[1] as string);
    if (quad === undefined) return undefined;
    tail.push(((quad[0] as number) << 8) | (quad[1] as number), ((quad[2] as number) << 8) | (quad[3] as number));
    // Drop ":a.b.c.d" but keep a "::" that ends right before it ("::1.2.3.4", "1::1.2.3.4").
    head = head.slice(0, dotted.index);
    if (head.endsWith(":")) head = `${head}:`;
  }
  const [left = "", right, ...more] = head.split("::");
  if (more.length > 0) return undefined;
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16)));
  const leftGroups = groups(left);
  const rightGroups = [...(right === undefined ? [] : groups(right)), ...tail];
  const missing = 8 - leftGroups.length - rightGroups.length;
  if (right === undefined ? missing !== 0 : missing < 1) return undefined;
  const all = [...leftGroups, ...Array<number>(right === undefined ? 0 : missing).fill(0), ...rightGroups];
  if (all.length !== 8 || all.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff))
    return undefined;
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** The address `text` names (brackets around IPv6 allowed), or undefined when it is not an IP address. */
export function parseAddress(text: string): ParsedAddress | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIPv4(bare);
  if (v4 !== undefined) return { family: 4, bytes: v4 };
  const v6 = parseIPv6(bare);
  return v6 === undefined ? undefined : { family: 6, bytes: v6 };
}

/** Dotted-quad text of four bytes. */
export function formatIPv4(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 4)).join(".");
}

/** Canonical IPv6 text (RFC 5952: lower case, the longest run of zero groups compressed) of sixteen bytes. */
export function formatIPv6(bytes: Uint8Array): string {
  const groups = Array.from(
    { length: 8 },
    (_, index) => ((bytes[index * 2] as number) << 8) | (bytes[index * 2 + 1] as number),
  );
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; ) {
    if (groups[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
