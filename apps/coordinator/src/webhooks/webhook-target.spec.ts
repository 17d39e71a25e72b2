import ipaddr from 'ipaddr.js';
import { request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, REFUSED_IPV4, REFUSED_IPV6 } from './public-address';
import { sendWebhook } from './send-webhook';
import { WebhookRefusedError } from './webhook-refused.error';
import { checkResolvesPublic, publicOnlyLookup, webhookTarget } from './webhook-target';

/** The first and the last address of a block. */
function ends(cidr: string): [string, string] {
  const [net, bits] = ipaddr.parseCIDR(cidr);
  const bytes = net.toByteArray();
  const last = bytes.map((b, i) => {
    const hostBits = Math.min(8, Math.max(0, (i + 1) * 8 - bits));
    return b | ((1 << hostBits) - 1);
  });
  return [net.toString(), ipaddr.fromByteArray(last).toString()];
}

describe('isPublicAddress', () => {
  it.each([...REFUSED_IPV4, ...REFUSED_IPV6].map((b) => [b.cidr, b.why]))('refuses all of %s, %s', (cidr) => {
    for (const a of ends(cidr)) expect(isPublicAddress(a), a).toBe(false);
    if (!cidr.includes(':')) for (const a of ends(cidr)) expect(isPublicAddress(`::ffff:${a}`), `::ffff:${a}`).toBe(false);
  });

  it.each([
    // IPv4, and IPv4 mapped into IPv6, judged as the IPv4 address.
    ...['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.0.8', '192.0.0.9', '192.88.99.1'],
    ...['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254'],
    // IPv6 outside 2000::/3: what the last probe found (local-use NAT64, IPv4-compatible, site-local, discard-only), and the rest.
    ...['64:ff9b:1::7f00:1', '::127.0.0.1', '::7f00:1', 'fec0::1', '100::1', '100::1:2:3:4'],
    ...['::1', '::', 'fe80::1', 'fe80::1%eth0', 'fc00::1', 'fd12::1', 'ff02::1', '64:ff9b::a00:1', '64:ff9b::808:808', '::ffff:0:7f00:1', '4000::1', '5f00::1', 'e000::1'],
    // Special blocks inside 2000::/3.
    ...['2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:2::1', '2001:20::1', '2001:db8::1', '2002:7f00:1::', '2002:808:808::1', '3fff::1'],
    // Not an address in canonical form: the resolver and the URL parser never give these.
    ...['not-an-ip', '', '127.1', '0x7f.0.0.1', '0177.0.0.1', '2130706433', '1.2.3.4.5'],
  ])('refuses %s', (a) => expect(isPublicAddress(a)).toBe(false));

  it.each([
    ...['8.8.8.8', '1.1.1.1', '93.184.216.34', '::ffff:8.8.8.8'],
    // Just outside each refused IPv4 block.
    ...['1.0.0.0', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '126.255.255.255', '128.0.0.0', '169.253.255.255', '169.255.0.0'],
    ...['172.15.255.255', '172.32.0.0', '191.255.255.255', '192.0.1.0', '192.0.3.0', '192.88.98.255', '192.88.100.0', '192.167.255.255', '192.169.0.0'],
    ...['198.17.255.255', '198.20.0.0', '198.51.99.255', '198.51.101.0', '203.0.112.255', '203.0.114.0', '223.255.255.255'],
    // Global unicast IPv6, just outside the special blocks inside 2000::/3 included.
    ...['2606:4700:4700::1111', '2a00:1450:4001::1', '2000::1', '2001:200::1', '2001:db7:ffff::1', '2001:db9::1', '2003::1', '3ffe::1', '3fff:1000::1', '3fff:ffff::1'],
  ])('accepts %s', (a) => expect(isPublicAddress(a)).toBe(true));
});

describe('webhookTarget', () => {
  const allowed = new Set(['127.0.0.1:8080', '[::1]:9000']);
  it('wants https unless the host:port is allow-listed', () => {
    expect(() => webhookTarget('http://example.com/hook', allowed)).toThrow(/must use https/);
    expect(webhookTarget('http://127.0.0.1:8080/hook', allowed).allowListed).toBe(true);
    expect(webhookTarget('http://[::1]:9000/hook', allowed).allowListed).toBe(true);
    // The port is part of the entry: another port on the same host is not allow-listed.
    expect(() => webhookTarget('http://127.0.0.1:8081/hook', allowed)).toThrow(/must use https/);
    expect(webhookTarget('https://example.com/hook', allowed)).toMatchObject({ allowListed: false, hostPort: 'example.com:443' });
  });

  it('refuses loopback, private and link-local targets that are not allow-listed, literal or resolved', async () => {
    const refused = ['https://127.0.0.1/h', 'https://[::1]/h', 'https://169.254.169.254/latest', 'https://10.0.0.1/h', 'https://localhost/h', 'https://127.0.0.1:8080/h'];
    const ipv6 = ['https://[64:ff9b:1::7f00:1]:8443/h', 'https://[::127.0.0.1]/h', 'https://[fec0::1]/h', 'https://[100::1]/h', 'https://[::ffff:169.254.169.254]/h'];
    for (const url of [...refused, ...ipv6]) {
      await expect(checkResolvesPublic(webhookTarget(url, new Set()), 3000), url).rejects.toBeInstanceOf(WebhookRefusedError);
    }
    await expect(checkResolvesPublic(webhookTarget('https://8.8.8.8/h', new Set()), 3000)).resolves.toBeUndefined();
  });
});

describe('at connect', () => {
  it('the socket lookup refuses a name that resolves to loopback, whatever was checked before', async () => {
    // As DNS rebinding would leave it: the URL passed when the run was created, the name now resolves to 127.0.0.1.
    const req = request('https://localhost:1/hook', { lookup: publicOnlyLookup, agent: false, method: 'POST' });
    const err = await new Promise<Error>((resolve) => req.on('error', resolve).end());
    expect(err).toBeInstanceOf(WebhookRefusedError);
    // The reason names the host but not what it resolves to: a caller learns nothing of the network inside.
    expect(err.message).toMatch(/^webhook host localhost resolves to an address that is not public/);
    expect(err.message).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('sendWebhook refuses an IP literal that is not allow-listed without connecting', async () => {
    for (const host of ['127.0.0.1', '[64:ff9b:1::7f00:1]', '[::127.0.0.1]', '[fec0::1]', '[100::1]']) {
      const target = { url: new URL(`https://${host}:1/hook`), hostPort: `${host}:1`, allowListed: false };
      await expect(sendWebhook(target, '{}', {}, 1000), host).rejects.toThrow(/is not a public address/);
    }
  });
});
