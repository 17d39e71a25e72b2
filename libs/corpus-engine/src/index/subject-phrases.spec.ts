import { describe, expect, it } from 'vitest';
import { analyzeTerms } from '@orrery/language';
import { CorpusIndex } from './corpus-index';
import { subjectPhrases, surveyByCompany } from './subject-phrases';

/**
 * Dated "speeches", 1880 to 2000, ten paragraphs each. Immigration is spoken of with "Chinese laborers" and
 * "steamship companies" before 1910 and with "border security" after 1980; one paragraph of 1890 also speaks of
 * steamship companies carrying the mails, without immigration. Every late paragraph, on any subject, says
 * "opportunity" and "goal": words of the late speeches, not of immigration.
 */
function speeches(): CorpusIndex {
  const passages = [];
  for (let year = 1880; year <= 2000; year += 10) {
    const late = year >= 1980;
    const title = `${year}, President ${late ? 'Modern' : 'Elder'}`;
    for (let k = 1; k <= 10; k++) {
      const early = year <= 1900;
      const filler = late ? 'Our goal is opportunity for the navy and the post roads' : 'The navy and the post roads are in good order';
      const text =
        k <= 4 && (early || late)
          ? late
            ? `Immigration needs border security and opportunity, and our goal is enforcement, paragraph ${k}.`
            : k <= 2
              ? `Immigration of Chinese laborers calls for exclusion, paragraph ${k}.`
              : `Immigration by the steamship companies brings Chinese laborers to our ports, paragraph ${k}.`
          : year === 1890 && k === 10
            ? `The steamship companies carry the mails to the ports of the Pacific, paragraph ${k}.`
            : `In ${year}: ${filler}, paragraph ${k}.`;
      passages.push({ id: `y${year}-p${k}`, title, text });
    }
  }
  return new CorpusIndex(passages);
}

describe('subjectPhrases', () => {
  const index = speeches();
  const phrases = subjectPhrases(index, analyzeTerms('immigration'));
  const surfaces = phrases.map((p) => p.surface);

  it("names the phrases the subject's passages say, not only their words", () => {
    expect(surfaces).toEqual(expect.arrayContaining(['Chinese laborers', 'border security', 'steamship companies']));
    const laborers = phrases.find((p) => p.surface === 'Chinese laborers')!;
    expect(laborers.ids).toHaveLength(12);
    expect(laborers.own).toEqual(analyzeTerms('Chinese laborers'));
  });

  it("weighs each passage against its own era's, so a word of late speeches is not the subject's company", () => {
    // Against the whole corpus "goal" and "opportunity" are 2.5 times likelier in immigration's late passages; against their own eras they are not.
    expect(surfaces).not.toContain('goal');
    expect(surfaces).not.toContain('opportunity');
  });

  it("weighs a phrase by its own words' company: steamship companies that carry mails lower it", () => {
    const weight = (s: string): number => phrases.find((p) => p.surface === s)!.weight;
    expect(weight('Chinese laborers')).toBeGreaterThan(weight('steamship companies'));
  });

  it('ranks a phrase of two words of its own above one of its words alone, said as often', () => {
    // "Chinese" and "Chinese laborers" are said in the same passages; the phrase names what they are about.
    expect(surfaces.indexOf('Chinese laborers')).toBeLessThan(surfaces.indexOf('Chinese'));
    expect(surfaces).toContain('Chinese');
  });

  it('names no company for a subject too few passages hold', () => {
    expect(subjectPhrases(index, analyzeTerms('exclusion'))).toEqual([]);
  });
});

describe('surveyByCompany', () => {
  const index = speeches();

  it('reads each company phrase where the subject is said with it, one speech before a second, not what is skipped', () => {
    const picked = surveyByCompany(index, analyzeTerms('immigration'), 2, 3, (id) => id === 'y1880-p1');
    const phrases = [...new Set(picked.map((p) => p.own.join(' ')))];
    expect(phrases).toHaveLength(2);
    for (const key of phrases) {
      const mine = picked.filter((p) => p.own.join(' ') === key);
      expect(mine).toHaveLength(3);
      expect(mine.every((p) => [...key.split(' '), analyzeTerms('immigration')[0]!].every((s) => index.termsOf(p.id).includes(s)))).toBe(true);
      expect(new Set(mine.map((p) => p.id.slice(0, 5))).size).toBe(3);
    }
    expect(picked.map((p) => p.id)).not.toContain('y1880-p1');
    expect(new Set(picked.map((p) => p.id)).size).toBe(picked.length);
  });
});
