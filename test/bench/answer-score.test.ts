import { describe, expect, it } from 'vitest';
import { scoreAnswer } from '../../bench/answers/answers-bench';

const report = (summary: string, cited: { id: string; title: string }[]) => ({
  summary,
  summaryCitations: cited.map((c) => ({ sourceId: c.id })),
  sources: cited,
});

describe('bench:answers scoring', () => {
  const q = { question: 'When did FDR first deliver one?', answer: ['1934'], speech: ['1934, Franklin D. Roosevelt'] };
  it('wants the answer named in the lede and a lede citation from the right speech', () => {
    expect(scoreAnswer(q, report('1934: his first.', [{ id: 'a', title: '1934, Franklin D. Roosevelt' }])).correct).toBe(true);
    expect(scoreAnswer(q, report('1934: his first.', [{ id: 'a', title: '1935, Franklin D. Roosevelt' }]))).toMatchObject({ named: true, cited: false, correct: false });
    expect(scoreAnswer(q, report('In 19345 …', [{ id: 'a', title: '1934, Franklin D. Roosevelt' }])).named).toBe(false);
    expect(scoreAnswer(q, report('1934.', [])).correct).toBe(false);
  });
  it('matches a name with or without the periods after initials', () => {
    const who = { question: 'Who?', answer: ['Harry S. Truman'], speech: [] };
    expect(scoreAnswer(who, report('Harry S Truman gave it.', [])).correct).toBe(true);
    expect(scoreAnswer(who, report('Truman gave it.', [])).correct).toBe(false);
  });
  it('wants an absent answer said plainly in the first sentence', () => {
    const absent = { question: 'Who delivered the 1933 address?', absent: true };
    expect(scoreAnswer(absent, report('The corpus holds no address from 1933. The nearest is 1932.', [])).correct).toBe(true);
    expect(scoreAnswer(absent, report('Herbert Hoover gave it. None other.', [])).correct).toBe(false);
  });
});
