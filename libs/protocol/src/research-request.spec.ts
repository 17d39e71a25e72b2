import { describe, expect, it } from 'vitest';
import { ResearchRequestSchema } from './research-request';

describe('ResearchRequestSchema', () => {
  it('accepts a topic with optional engine and corpus', () => {
    expect(ResearchRequestSchema.parse({ topic: '  immigration  ', corpus: 'sotu' })).toEqual({ topic: 'immigration', corpus: 'sotu' });
  });
  it.each([
    [{}, 'topic'],
    [{ topic: '' }, 'topic'],
    [{ topic: 'x'.repeat(100_000) }, 'topic'],
    [{ topic: 42 }, 'topic'],
    [{ topic: 'ok topic', extra: 1 }, 'extra'],
    [{ topic: 'ok topic', corpus: '/etc/passwd' }, 'corpus'],
    [{ topic: 'ok topic', budget: { maxTasks: -1 } }, 'maxTasks'],
  ])('rejects %j naming %s', (input, field) => {
    const r = ResearchRequestSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain(field);
  });
});
