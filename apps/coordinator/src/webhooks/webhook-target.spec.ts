import { request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { isPublicAddress } from './public-address';
import { sendWebhook } from './send-webhook';
import { WebhookRefusedError } from './webhook-refused.error';
import { checkResolvesPublic, publicOnlyLookup, webhookTarget } from './webhook-target';

describe('isPublicAddress', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.0.8', '::1', '::', 'fe80::1', 'fc00::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', '2002:7f00:1::', '2001:db8::1', 'not-an-ip'])(
    'refuses %s',
    (a) => expect(isPublicAddress(a)).toBe(false),
  );
  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (a) => expect(isPublicAddress(a)).toBe(true));
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
    for (const url of ['https://127.0.0.1/h', 'https://[::1]/h', 'https://169.254.169.254/latest', 'https://10.0.0.1/h', 'https://localhost/h', 'https://127.0.0.1:8080/h']) {
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
    expect(err.message).toMatch(/resolves to (127\.0\.0\.1|::1)/);
  });

  it('sendWebhook refuses an IP literal that is not allow-listed without connecting', async () => {
    const target = { url: new URL('https://127.0.0.1:1/hook'), hostPort: '127.0.0.1:1', allowListed: false };
    await expect(sendWebhook(target, '{}', {}, 1000)).rejects.toBeInstanceOf(WebhookRefusedError);
  });
});
