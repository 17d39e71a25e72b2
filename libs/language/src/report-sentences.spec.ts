import { describe, expect, it } from 'vitest';
import { citeable, sentencesOf } from './report-sentences';

describe('sentencesOf', () => {
  it('cuts prose into sentences, tables into rows and keeps the text whole', () => {
    const text = 'The U.S. grew 3.5% in 2024. Europe grew less.\n\n| Country | Growth |\n| --- | --- |\n| US | 3.5% |\n- a list item. Still one.\nLast one.';
    const parts = sentencesOf(text);
    expect(parts.join('')).toBe(text);
    expect(parts.map((p) => p.trim())).toEqual(['The U.S. grew 3.5% in 2024.', 'Europe grew less.', '| Country | Growth |', '| --- | --- |', '| US | 3.5% |', '- a list item. Still one.', 'Last one.']);
    expect(parts.filter(citeable).length).toBe(6);
  });

  it('keeps a fenced block whole', () => {
    const text = 'Before.\n```\nx = 1. y = 2.\n```\nAfter.';
    expect(sentencesOf(text).map((p) => p.trim())).toEqual(['Before.', '```\nx = 1. y = 2.\n```', 'After.']);
  });
});
