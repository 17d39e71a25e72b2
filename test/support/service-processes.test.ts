/**
 * The harness's own start-up check: a coordinator is ready when it answers on its port, and only if it is the one
 * answering. Two stacks starting at once can be handed the same free port; the one that loses the bind exits, and
 * the other's /healthz on that port must not pass for it (its test would then drive the other stack's runs).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startCoordinatorProcess } from './service-processes';
import { dropPrefix, FIXTURE_CORPUS, uniquePrefix } from './test-env';

describe('startCoordinatorProcess', () => {
  const prefixes = [uniquePrefix('port-first'), uniquePrefix('port-second')];
  afterAll(async () => {
    for (const p of prefixes) await dropPrefix(p);
  });

  it('does not take another coordinator answering on its port for its own', async () => {
    const port = String(await freePort());
    const env = (prefix: string) => ({ QUEUE_PREFIX: prefix, ENGINE: 'corpus', CORPORA: `kestrel=${FIXTURE_CORPUS}`, DEFAULT_CORPUS: 'kestrel', PORT: port });
    const first = await startCoordinatorProcess(env(prefixes[0]!));
    try {
      await expect(startCoordinatorProcess(env(prefixes[1]!))).rejects.toThrow(/coordinator exited/);
    } finally {
      await first.kill();
    }
  }, 120_000);
});
