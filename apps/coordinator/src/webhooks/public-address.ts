import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';

/** A block of addresses and why a webhook may not reach it. */
export interface AddressBlock {
  cidr: string;
  why: string;
}

/**
 * IPv4 blocks no webhook reaches: the IANA IPv4 Special-Purpose Address Registry's blocks that are not globally
 * reachable, with multicast and the reserved block (broadcast included). 192.0.0.0/24 is refused whole, its two
 * anycast /32s (PCP, TURN) with it: no webhook receiver lives there.
 */
export const REFUSED_IPV4: readonly AddressBlock[] = [
  { cidr: '0.0.0.0/8', why: '"this network" (RFC 791)' },
  { cidr: '10.0.0.0/8', why: 'private (RFC 1918)' },
  { cidr: '100.64.0.0/10', why: 'shared address space, carrier-grade NAT (RFC 6598)' },
  { cidr: '127.0.0.0/8', why: 'loopback (RFC 1122)' },
  { cidr: '169.254.0.0/16', why: 'link-local, cloud metadata (RFC 3927)' },
  { cidr: '172.16.0.0/12', why: 'private (RFC 1918)' },
  { cidr: '192.0.0.0/24', why: 'IETF protocol assignments (RFC 6890)' },
  { cidr: '192.0.2.0/24', why: 'documentation, TEST-NET-1 (RFC 5737)' },
  { cidr: '192.88.99.0/24', why: '6to4 relay anycast, deprecated (RFC 7526)' },
  { cidr: '192.168.0.0/16', why: 'private (RFC 1918)' },
  { cidr: '198.18.0.0/15', why: 'benchmarking (RFC 2544)' },
  { cidr: '198.51.100.0/24', why: 'documentation, TEST-NET-2 (RFC 5737)' },
  { cidr: '203.0.113.0/24', why: 'documentation, TEST-NET-3 (RFC 5737)' },
  { cidr: '224.0.0.0/4', why: 'multicast (RFC 5771)' },
  { cidr: '240.0.0.0/4', why: 'reserved, and 255.255.255.255 limited broadcast (RFC 1112, RFC 919)' },
];

/**
 * IPv6 is decided by an allow-list: only global unicast, 2000::/3 (RFC 4291), may be reached. That leaves out
 * loopback, unspecified, IPv4-mapped (judged as their IPv4 address instead), IPv4-compatible (::/96), NAT64
 * (64:ff9b::/96, and the local-use 64:ff9b:1::/48 of RFC 8215), discard-only (100::/64, RFC 6666), unique-local
 * (fc00::/7), link-local (fe80::/10), site-local (fec0::/10), multicast (ff00::/8) and every block not yet
 * allocated. These are the special blocks inside 2000::/3, refused too.
 */
export const GLOBAL_UNICAST_IPV6 = '2000::/3';
export const REFUSED_IPV6: readonly AddressBlock[] = [
  { cidr: '2001::/23', why: 'IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, AMT, anycast (RFC 2928)' },
  { cidr: '2001:db8::/32', why: 'documentation (RFC 3849)' },
  { cidr: '2002::/16', why: '6to4, which carries an IPv4 address (RFC 3056)' },
  { cidr: '3fff::/20', why: 'documentation (RFC 9637)' },
];

const refusedV4 = REFUSED_IPV4.map((b) => ipaddr.IPv4.parseCIDR(b.cidr));
const refusedV6 = REFUSED_IPV6.map((b) => ipaddr.IPv6.parseCIDR(b.cidr));
const globalV6 = ipaddr.IPv6.parseCIDR(GLOBAL_UNICAST_IPV6);

/**
 * Whether a webhook may reach an address: an IPv4 address outside REFUSED_IPV4, an IPv6 address in 2000::/3
 * outside REFUSED_IPV6, or an IPv4-mapped IPv6 address (::ffff:a.b.c.d) whose IPv4 address may be reached.
 * Anything but the canonical forms Node's resolver and the URL parser give is refused.
 */
export function isPublicAddress(address: string): boolean {
  const ip = parse(address);
  if (ip instanceof ipaddr.IPv4) return !refusedV4.some((block) => ip.match(block));
  if (ip instanceof ipaddr.IPv6) return ip.match(globalV6) && !refusedV6.some((block) => ip.match(block));
  return false;
}

/** The address, IPv4-mapped IPv6 unwrapped to its IPv4 address; undefined unless it is a canonical IP address. */
function parse(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (!isIP(address)) return undefined;
  try {
    return ipaddr.process(address);
  } catch {
    return undefined;
  }
}
