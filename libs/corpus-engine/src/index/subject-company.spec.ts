import { describe, expect, it } from 'vitest';
import { analyzeTerms } from '@orrery/language';
import { CorpusIndex } from './corpus-index';
import { subjectCompany } from './subject-company';

/**
 * Dated "speeches", 1880 to 2000, ten paragraphs each. Immigration is spoken of with "exclusion" in the 1880s
 * and with "border" after 1980. Three paragraphs of 1880 speak of lighthouses. Every late paragraph, on any subject, says "opportunity": a word of the late
 * speeches, not of immigration.
 */
function speeches(): CorpusIndex {
  const passages = [];
  for (let year = 1880; year <= 2000; year += 10) {
    const late = year >= 1980;
    const title = `${year}, President ${late ? 'Modern' : 'Elder'}`;
    for (let k = 1; k <= 10; k++) {
      const filler = late ? 'opportunity for the navy and the post roads' : 'the navy and the post roads';
      const text =
        k <= 4 && (year <= 1900 || late)
          ? late
            ? `Immigration at the border needs enforcement and opportunity, paragraph ${k}.`
            : `Immigration of Chinese laborers calls for exclusion, paragraph ${k}.`
          : year === 1880 && k >= 8
            ? `The lighthouses of the coast want keepers and lamps, paragraph ${k}.`
            : `In ${year}, ${filler}, paragraph ${k}.`;
      passages.push({ id: `y${year}-p${k}`, title, text });
    }
  }
  return new CorpusIndex(passages);
}

describe('subjectCompany', () => {
  const index = speeches();
  const words = subjectCompany(index, analyzeTerms('immigration'));
  const stems = words.map((w) => w.stem);

  it("names what the subject's passages say far more than the corpus does", () => {
    for (const w of ['border', 'exclusion', 'chinese', 'enforcement']) expect(stems).toContain(analyzeTerms(w)[0]);
    expect(words.every((w) => w.lift >= 2 && w.passages >= 3)).toBe(true);
  });

  it("weighs each passage against its own era's, so a word of late speeches is not the subject's company", () => {
    // Against the whole corpus "opportunity" is 2.5 times likelier in immigration's passages; against their own eras it is not.
    expect(stems).not.toContain(analyzeTerms('opportunity')[0]);
  });

  it('names no company for a subject too few passages hold', () => {
    // Three passages say lighthouses, keepers and lamps: what three passages share is no theme.
    expect(subjectCompany(index, analyzeTerms('lighthouses'))).toEqual([]);
  });

  it("leaves out the speakers' names and the subject's own words", () => {
    expect(stems).not.toContain(analyzeTerms('Modern')[0]);
    expect(stems).not.toContain(analyzeTerms('immigration')[0]);
  });
});
