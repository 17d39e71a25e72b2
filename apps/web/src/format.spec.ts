import { describe, expect, it } from 'vitest';
import { ago, counted, dollars, seconds, slug, tokens } from './format.js';

describe('page formats', () => {
  it('says durations the short way', () => {
    expect([seconds(4.2), seconds(60), seconds(75), seconds(900), seconds(3600), seconds(5400)]).toEqual(['4 s', '1 min', '1 min 15 s', '15 min', '1 h', '1 h 30 min']);
  });
  it('says ages and token counts compactly', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect([ago('2026-01-01T11:59:50Z', now), ago('2026-01-01T11:50:00Z', now), ago('2026-01-01T09:00:00Z', now), ago('2025-12-30T12:00:00Z', now)]).toEqual(['10 s ago', '10 min ago', '3 h ago', '2 d ago']);
    expect([tokens(0), tokens(1234), tokens(56_789)]).toEqual(['0 tokens', '1.2k tokens', '57k tokens']);
  });
  it('says a count with its noun in the number it needs', () => {
    expect([counted(1, 'round'), counted(0, 'task'), counted(1200, 'task'), counted(2, 'source')]).toEqual(['1 round', '0 tasks', '1,200 tasks', '2 sources']);
  });
  it('says dollars in cents, and a cost below a cent as such', () => {
    expect([dollars(0), dollars(0.004), dollars(0.0051), dollars(1.234), dollars(25)]).toEqual(['$0.00', '<$0.01', '$0.01', '$1.23', '$25.00']);
  });
  it('makes a file name stem of a question: accents folded, no path or markup characters, bounded', () => {
    expect(slug('How is the Kestrel River managed?')).toBe('how-is-the-kestrel-river-managed');
    expect(slug('Qué pasó en Écija? ../../etc <b>')).toBe('que-paso-en-ecija-etc-b');
    expect(slug('?!')).toBe('orrery-report');
    expect(slug('a'.repeat(80) + ' b').length).toBe(60);
  });
});
