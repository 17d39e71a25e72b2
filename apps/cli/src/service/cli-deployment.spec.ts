import { describe, expect, it } from 'vitest';
import { CLI_RUN_RETENTION_SECONDS, cliDeployment } from './cli-deployment';

describe('the CLI service\'s place in Redis', () => {
  it('takes a queue prefix of its own, never the default a server uses, and short-lived runs', () => {
    const a = cliDeployment({});
    const b = cliDeployment({});
    expect(a.own).toBe(true);
    expect(a.prefix).toMatch(/^orrery-cli-[0-9a-f]{8}$/);
    expect(a.prefix).not.toBe(b.prefix);
    expect(a.env).toEqual({ QUEUE_PREFIX: a.prefix, RUN_RETENTION_SECONDS: String(CLI_RUN_RETENTION_SECONDS) });
    expect(CLI_RUN_RETENTION_SECONDS).toBeLessThanOrEqual(600);
  });

  it('joins a deployment that QUEUE_PREFIX names, and keeps a retention the environment sets', () => {
    const d = cliDeployment({ QUEUE_PREFIX: 'orrery', RUN_RETENTION_SECONDS: '86400' });
    expect(d).toEqual({ prefix: 'orrery', own: false, env: { QUEUE_PREFIX: 'orrery', RUN_RETENTION_SECONDS: '86400' } });
  });
});
