import ipaddr from 'ipaddr.js';

/** Special-use IPv4 blocks ipaddr.js 1.x files under `unicast` (RFC 6890): benchmarking and the IETF protocol block. */
const EXTRA_SPECIAL_V4: [ipaddr.IPv4, number][] = [ipaddr.IPv4.parseCIDR('198.18.0.0/15'), ipaddr.IPv4.parseCIDR('192.0.0.0/24')];

/**
 * Whether an address is one a webhook may reach: globally routable unicast. Private, loopback, link-local,
 * carrier-grade NAT, multicast, reserved and documentation ranges are not, nor IPv6 forms that embed an IPv4
 * address (mapped ones are judged as the IPv4 address they carry; NAT64, 6to4 and Teredo are refused).
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address);
  if (ip.range() !== 'unicast') return false;
  return !(ip.kind() === 'ipv4' && EXTRA_SPECIAL_V4.some((cidr) => (ip as ipaddr.IPv4).match(cidr)));
}
