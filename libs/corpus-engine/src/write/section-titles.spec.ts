import { describe, expect, it } from 'vitest';
import { titleCandidates } from '@orrery/language';
import { groundedTitle, titleGrounded } from './section-titles';

const NEW_YORK = [
  'During the last two years the immigration service at New York has been greatly improved.',
  'Perhaps it would be possible to limit the number of immigrants allowed to come in any one year to New York.',
];

describe('section titles', () => {
  it('keeps a name whole when one of its words says nothing alone', () => {
    expect(titleCandidates(NEW_YORK[0]!).map((c) => c.surface)).toContain('New York');
    expect(titleGrounded('New York', NEW_YORK)).toBe(true);
    expect(groundedTitle(NEW_YORK, [], 'New York')).toBe('New York');
    expect(groundedTitle(NEW_YORK, [], null)).toBe('New York');
  });

  it('still refuses those words outside a name, and offices and filler inside one', () => {
    expect(titleGrounded('new rules', ['The new rules apply.'])).toBe(false);
    expect(titleGrounded('Right kind', ['the right kind of immigration'])).toBe(false);
    expect(titleGrounded('Last Year', ['Last Year we passed it.'])).toBe(false);
    expect(titleGrounded('Vice President', ['The Vice President spoke.'])).toBe(false);
    expect(titleCandidates('The new rules apply to steamship companies.').map((c) => c.surface)).not.toContain('new rules');
  });
});
