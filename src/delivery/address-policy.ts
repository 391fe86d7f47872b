import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a delivery may connect to: the SSRF half of the outbound guard. Pure: no DNS, no
 * sockets. src/delivery/outbound-http.ts resolves names and asks this module about every address
 * before it connects to the one it checked.
 *
 * The IPv6 side is an allow-list (global unicast 2000::/3 and NAT64 of a public IPv4), because new
 * special-purpose ranges keep appearing and an unknown range is safer refused than reached.
 */

/** `allowPrivate` is OUTBOUND_ALLOW_PRIVATE: local testing against receivers on loopback or a LAN. */
export interface AddressPolicy {
  readonly allowPrivate: boolean;
}

export type ForbiddenReason =
  | 'invalid'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'unique-local'
  | 'site-local';

/** An address in the one spelling the client both checks and connects to. */
export interface CheckedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

const V4_REASONS: Readonly<Record<string, ForbiddenReason>> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'cgnat',
  private: 'private',
  // Documentation, benchmarking, 240/4 and the anycast sinks: no webhook receiver lives there.
  reserved: 'reserved',
  as112: 'reserved',
  amt: 'reserved',
};

const V6_REASONS: Readonly<Record<string, ForbiddenReason>> = {
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link-local',
  multicast: 'multicast',
  uniqueLocal: 'unique-local',
  deprecatedSiteLocal: 'site-local',
};

/**
 * Parses an IP literal in its strict textual form only. ipaddr.js alone would also accept the classful
 * spellings (`127.1`, `0x7f.0.0.1`, `2130706433`); those reach us only through a URL, whose parser
 * already turned them into dotted quads (see `urlHostAddress`), so anything else is not an address.
 */
export function parseAddress(ip: string): CheckedAddress | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return { address: ipaddr.IPv4.parse(ip).toString(), family: 4 };
  if (ipaddr.IPv6.isValid(ip)) return { address: ipaddr.IPv6.parse(ip).toString(), family: 6 };
  return null;
}

/** Why a delivery must not connect to `ip`, or null when it may. Unparseable input is refused. */
export function isForbiddenAddress(ip: string): ForbiddenReason | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return forbiddenV4(ipaddr.IPv4.parse(ip));
  if (ipaddr.IPv6.isValid(ip)) return forbiddenV6(ipaddr.IPv6.parse(ip));
  return 'invalid';
}

/** `isForbiddenAddress` under a policy: with `allowPrivate` any well-formed address passes. */
export function checkAddress(ip: string, policy: AddressPolicy): ForbiddenReason | null {
  if (policy.allowPrivate) return parseAddress(ip) === null ? 'invalid' : null;
  return isForbiddenAddress(ip);
}

function forbiddenV4(address: ipaddr.IPv4): ForbiddenReason | null {
  const range = address.range();
  return range === 'unicast' ? null : (V4_REASONS[range] ?? 'reserved');
}

function v4At(parts: readonly number[], index: number): ipaddr.IPv4 {
  const high = parts[index] ?? 0;
  const low = parts[index + 1] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function forbiddenV6(address: ipaddr.IPv6): ForbiddenReason | null {
  const parts = address.parts;
  const range = address.range();
  const known = V6_REASONS[range];
  if (known !== undefined) return known;

  // Forms that carry an IPv4 address inside: the kernel, a NAT64 gateway or a relay ends up talking to
  // that IPv4 address, so `::ffff:127.0.0.1` is loopback however it is spelt.
  if (range === 'ipv4Mapped') return forbiddenV4(v4At(parts, 6));
  // SIIT IPv4-translated ::ffff:0:a.b.c.d (RFC 6145) is not routed on the Internet.
  if (range === 'rfc6145') return forbiddenV4(v4At(parts, 6)) ?? 'reserved';
  // IPv4-compatible ::a.b.c.d (deprecated, RFC 4291): never a legitimate destination, but name the
  // embedded address's class when it has one so the refusal reads `loopback` for ::127.0.0.1.
  if (parts.slice(0, 6).every((p) => p === 0)) return forbiddenV4(v4At(parts, 6)) ?? 'reserved';
  // Well-known NAT64 prefix 64:ff9b::/96: DNS64 networks hand these out for IPv4-only public hosts.
  if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return forbiddenV4(v4At(parts, 6));
  // 6to4 2002:AABB:CCDD::/48 embeds the relay's IPv4 address.
  if (range === '6to4') return forbiddenV4(v4At(parts, 1));
  // Teredo 2001:0::/32: server IPv4 in bits 32-63, client IPv4 (inverted) in the last 32 bits.
  if (range === 'teredo') {
    const client = v4At(
      parts.map((p, i) => (i >= 6 ? p ^ 0xffff : p)),
      6,
    );
    return forbiddenV4(v4At(parts, 2)) ?? forbiddenV4(client);
  }
  // Everything else outside global unicast (local-use NAT64, documentation, ORCHID, discard, ...).
  if (range !== 'unicast') return 'reserved';
  return address.match(ipaddr.IPv6.parse('2000::'), 3) ? null : 'reserved';
}

/** Names that mean this machine without asking DNS (RFC 6761): refused before any lookup. */
export function isLocalhostName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The IP address a URL's host denotes, or null when the host is a name to resolve. The WHATWG parser
 * has already normalised the IPv4 spellings (`2130706433`, `0x7f.1`, `017700000001` all become
 * `127.0.0.1`) and compressed IPv6 (`[::ffff:127.0.0.1]` becomes `[::ffff:7f00:1]`); only the IPv6
 * brackets are left to strip.
 */
export function urlHostAddress(url: URL): CheckedAddress | null {
  const host = url.hostname.startsWith('[') && url.hostname.endsWith(']') ? url.hostname.slice(1, -1) : url.hostname;
  return parseAddress(host);
}
