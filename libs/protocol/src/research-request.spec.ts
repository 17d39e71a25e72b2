import { describe, expect, it } from 'vitest';
import { ResearchRequestSchema } from './research-request';

describe('ResearchRequestSchema', () => {
  it('accepts a topic with optional engine and corpus', () => {
    expect(ResearchRequestSchema.parse({ topic: '  immigration  ', corpus: 'sotu' })).toEqual({ topic: 'immigration', corpus: 'sotu' });
  });
  it('accepts well-formed text in any script, emoji and line breaks included', () => {
    for (const topic of ['Wie hat sich die Energiepolitik verändert?', '日本のエネルギー政策', 'Eagles \u{1F985} of the Kestrel River', 'line one\nline two', '1984']) {
      expect(ResearchRequestSchema.parse({ topic }).topic).toBe(topic);
    }
  });
  it.each([
    [{}, 'topic'],
    [{ topic: '' }, 'topic'],
    [{ topic: 'x'.repeat(100_000) }, 'topic'],
    [{ topic: 42 }, 'topic'],
    [{ topic: 'ok topic', extra: 1 }, 'extra'],
    [{ topic: 'ok topic', corpus: '/etc/passwd' }, 'corpus'],
    [{ topic: 'ok topic', budget: { maxTasks: -1 } }, 'maxTasks'],
    [{ topic: 'economy \ud800 policy' }, 'well-formed Unicode'],
    [{ topic: 'economy \udc00\ud800 policy' }, 'well-formed Unicode'],
    [{ topic: '\u0000\u0000\u0000\u0000' }, 'topic'],
    [{ topic: '\u200b\u200c\u200d\u2060\ufeff' }, 'letter'],
    [{ topic: '!!! ??? ...' }, 'letter'],
    [{ topic: 'Kestrel \u001b[31mRiver' }, 'control characters'],
    [{ topic: 'Kestrel River\u0085' }, 'control characters'],
  ])('rejects %j naming %s', (input, field) => {
    const r = ResearchRequestSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain(field);
  });
});
