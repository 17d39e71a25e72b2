/**
 * Behind proxies the failed-auth throttle counts the client address Express derives from X-Forwarded-For.
 * TRUST_PROXY as a hop count takes the address the nearest proxy appended, so a client that writes its own
 * X-Forwarded-For can neither escape the count nor aim it at someone else; `true` takes the leftmost entry,
 * which the client controls, and the coordinator warns at startup.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from '../support/stack';
import { newApiKey } from '../support/test-env';

const KEY = newApiKey();

describe('TRUST_PROXY', () => {
  let hops: Stack;
  let all: Stack;
  beforeAll(async () => {
    [hops, all] = await Promise.all([
      startStack('proxy-hops', { workers: 0, env: { API_KEYS: KEY, TRUST_PROXY: '1', AUTH_FAILURES_PER_MINUTE: '5' } }),
      startStack('proxy-true', { workers: 0, env: { API_KEYS: KEY, TRUST_PROXY: 'true', AUTH_FAILURES_PER_MINUTE: '5' } }),
    ]);
  });
  afterAll(async () => Promise.all([hops?.stop(), all?.stop()]));

  /** A request as one proxy in front forwards it: whatever the client wrote, then the address the proxy saw. */
  const viaProxy = (stack: Stack, clientWrote: string | undefined, clientAddress: string, key: string) =>
    fetch(`${stack.coordinator.url}/v1/research`, { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': clientWrote ? `${clientWrote}, ${clientAddress}` : clientAddress } });

  it('warns at startup that TRUST_PROXY=true believes a client’s own X-Forwarded-For', () => {
    expect(all.coordinator.output()).toMatch(/TRUST_PROXY=true takes the client address from the left end of X-Forwarded-For/);
    expect(hops.coordinator.output()).not.toMatch(/TRUST_PROXY=true/);
  });

  it('with a hop count, a spoofed X-Forwarded-For neither escapes the throttle nor locks out the address it names', async () => {
    const attacker = '203.0.113.5';
    const victim = '198.51.100.7';
    for (let i = 0; i < 5; i++) expect((await viaProxy(hops, `10.0.0.${i}`, attacker, `wrong-${i}-${'x'.repeat(40)}`)).status).toBe(401);
    expect((await viaProxy(hops, '10.0.0.99', attacker, `wrong-6-${'x'.repeat(40)}`)).status).toBe(429);
    expect((await viaProxy(hops, victim, attacker, KEY)).status).toBe(429);
    // The victim, whose address the attacker wrote each time, is not blocked.
    expect((await viaProxy(hops, undefined, victim, KEY)).status).toBe(200);
  });

  it('with true, the spoofed entry is what is counted (the reason for the warning)', async () => {
    const victim = '198.51.100.7';
    for (let i = 0; i < 5; i++) await viaProxy(all, victim, `203.0.113.${i}`, `wrong-${i}-${'x'.repeat(40)}`);
    expect((await viaProxy(all, undefined, victim, KEY)).status).toBe(429);
  });
});
