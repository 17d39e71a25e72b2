import { describe, expect, it } from 'vitest';
import { readFeedback, yearsOf } from './read-feedback';
import { reviseByTerms } from './revise-by-terms';

describe('reading feedback on a plan', () => {
  it('reads years, drops and additions clause by clause', () => {
    expect(readFeedback('leave out the 1800s; add tariffs').requests).toEqual([
      { kind: 'exclude-years', years: { from: 1800, to: 1899 }, said: 'leave out the 1800s' },
      { kind: 'add', target: 'tariffs', said: 'add tariffs' },
    ]);
    expect(readFeedback('drop navigation and add trade with Ossery').requests.map((r) => [r.kind, 'target' in r ? r.target : ''])).toEqual([
      ['exclude', 'navigation'],
      ['add', 'trade with Ossery'],
    ]);
    expect(readFeedback('no more dams. Thanks!')).toEqual({ requests: [{ kind: 'exclude', target: 'dams', said: 'no more dams' }], unread: ['Thanks!'] });
  });

  it('names years as a person says them', () => {
    expect(yearsOf('the 1990s')).toEqual({ from: 1990, to: 1999 });
    expect(yearsOf('the 19th century')).toEqual({ from: 1800, to: 1899 });
    expect(yearsOf('before 1900')).toEqual({ from: -9999, to: 1899 });
    expect(yearsOf('1800-1850')).toEqual({ from: 1800, to: 1850 });
    expect(yearsOf('tariffs')).toBeNull();
  });

  it('revises a plan with the words as scope', () => {
    const s = (id: string, term: string) => ({ id, title: term, query: `kestrel ${term}`, facetTerms: [term], excludeTerms: [], origin: 'plan' as const });
    const plan = { classification: 'breadth' as const, subtopics: [s('dams', 'dams'), s('navigation', 'navigation')] };
    const { plan: revised, changes } = reviseByTerms(plan, 'leave out the 1800s; drop navigation; add tariffs', 'Kestrel River');
    expect(revised.excludeYears).toEqual([{ from: 1800, to: 1899 }]);
    expect(revised.subtopics.map((x) => [x.id, x.facetTerms, x.excludeTerms])).toEqual([
      ['dams', ['dams'], ['tariffs', 'navigation']],
      ['tariffs', ['tariffs'], ['dams', 'navigation']],
    ]);
    expect(changes).toHaveLength(3);
  });
});
