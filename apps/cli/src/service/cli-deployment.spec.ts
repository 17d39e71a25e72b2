import { describe, expect, it } from 'vitest';
import { CLI_RUN_RETENTION_SECONDS, cliDeployment } from './cli-deployment';

describe('the CLI service\'s place in Redis', () => {
  it('takes a queue prefix of its own, never the default a server uses, and short-lived runs', () => {
    const a = cliDeployment({ ORRERY_DATA_DIR: '/data' });
    const b = cliDeployment({ ORRERY_DATA_DIR: '/data' });
    expect(a.own).toBe(true);
    expect(a.prefix).toMatch(/^orrery-cli-[0-9a-f]{8}$/);
    expect(a.prefix).not.toBe(b.prefix);
    expect(a.env).toEqual({ QUEUE_PREFIX: a.prefix, RUN_RETENTION_SECONDS: String(CLI_RUN_RETENTION_SECONDS), CORPUS_STORE: '/data/orrery-cli/passages.sqlite' });
    expect(b.env.CORPUS_STORE).toBe(a.env.CORPUS_STORE);
    expect(CLI_RUN_RETENTION_SECONDS).toBeLessThanOrEqual(600);
  });

  it('keeps a passage store the environment names', () => {
    expect(cliDeployment({ CORPUS_STORE: '/x.sqlite' }).env.CORPUS_STORE).toBeUndefined();
  });

  it('joins a deployment that QUEUE_PREFIX names, and keeps a retention the environment sets', () => {
    const d = cliDeployment({ QUEUE_PREFIX: 'orrery', RUN_RETENTION_SECONDS: '86400' });
    expect(d).toEqual({ prefix: 'orrery', own: false, env: { QUEUE_PREFIX: 'orrery', RUN_RETENTION_SECONDS: '86400' } });
  });
});
