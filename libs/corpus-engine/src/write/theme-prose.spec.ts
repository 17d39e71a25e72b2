import { quoteOccursIn } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { GENERIC_VOCABULARY } from '@orrery/passages';
import { type ProseContext, quotesOf } from './report-prose';
import { analyzeTerms } from '@orrery/language';
import { arcSentence, subjectSentences, themedReport } from './theme-prose';

/**
 * Dated passages on immigration whose retrieved quote (their first sentence) says only that immigration matters:
 * what each is about (Chinese laborers, steamship companies, quotas) is said in another sentence of the passage.
 */
const passages: Record<string, { title: string; text: string; quote: string }> = {};
const add = (id: string, year: number, quote: string, rest: string): void => void (passages[id] = { title: `${year}, President ${year}`, text: `${quote} ${rest}`, quote });
add('a', 1882, 'Immigration deserves the attention of Congress.', 'The exclusion of Chinese laborers from immigration is demanded by the people of the Pacific coast.');
add('b', 1885, 'Immigration raises questions of law.', 'The immigration of Chinese laborers continues across the northern border.');
add('c', 1901, 'Immigration must be watched closely.', 'The steamship companies bring immigrants who are refused at our ports. The steamship companies also carry the mails to Panama.');
add('d', 1905, 'We need better immigration laws.', 'Steamship companies must return the immigrants they bring and cannot land.');
add('e', 1924, 'Immigration has changed the country.', 'The immigration quotas now in force favor the older stock.');
add('f', 1927, 'Immigration policy needs study.', 'Immigration quotas based on national origins take effect this year.');
add('a2', 1888, 'Immigration is before you again.', 'Chinese laborers still seek immigration by way of Canada.');
add('c2', 1903, 'Immigration is heavy.', 'The steamship companies solicit immigration in Europe.');
add('e2', 1929, 'Immigration is lower.', 'Immigration quotas have reduced the numbers.');
add('g', 1960, 'Immigration is a source of strength.', 'The harbor of the city is busy.');

describe('themedReport', () => {
  const titles = new Map(Object.entries(passages).map(([id, p]) => [id, p.title]));
  const findings = Object.entries(passages).map(([id, p]) => ({ id: `${id}~q`, sourceId: id, quote: p.quote, claim: p.quote, subtopicId: 'overview', relevance: { score: 1, topicTerms: [], facetTerms: [] } }));
  const { shown, yearOf } = quotesOf([{ subtopicId: 'evidence', title: '', findings }], titles);
  const ctx = { vocabulary: GENERIC_VOCABULARY, isName: () => false };
  const report = themedReport(shown[0]!.quotes, 'immigration', 25, titles, ctx, yearOf, (id) => passages[id]?.text);

  it('finds themes where the passage says them, not only in the sentence retrieval quoted, and titles them by their phrase', () => {
    const bare = report!.sections.map((s) => s.title.replace(/^[0-9–]+: /, ''));
    expect(bare).toEqual(expect.arrayContaining(['Chinese laborers', 'Steamship companies', 'Immigration quotas']));
  });

  it('quotes, for each member, the sentence that says its theme and names the subject, verbatim from its source', () => {
    for (const s of report!.sections) {
      const title = new Set(analyzeTerms(s.title.replace(/^[0-9–]+: /, '')));
      for (const p of s.paragraphs)
        for (const c of p.citations) {
          const terms = new Set(analyzeTerms(c.quote));
          expect([...title].every((t) => terms.has(t))).toBe(true);
          expect(terms.has('immigr')).toBe(true);
          expect(quoteOccursIn(c.quote, passages[c.sourceId]!.text)).toBe(true);
        }
    }
    // The steamship sentence about the mails does not name the subject: never quoted.
    expect(JSON.stringify(report)).not.toContain('carry the mails');
    // A passage that says nothing beyond the subject is in no theme.
    expect(report!.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations)).some((c) => c.sourceId === 'g')).toBe(false);
  });
});

describe('themedReport, a theme said over decades', () => {
  // Chinese laborers: four passages of the 1880s, and two of the 1900s that retrieval ranked higher.
  const said: [string, number, number, string][] = [
    ['h1', 1880, 0.2, 'The immigration of Chinese laborers is a grave question.'],
    ['h2', 1882, 0.2, 'Chinese laborers and their immigration trouble the Pacific coast.'],
    ['h3', 1884, 0.2, 'The treaty restricts the immigration of Chinese laborers.'],
    ['h4', 1886, 0.2, 'Outrages upon Chinese laborers follow their immigration.'],
    ['h5', 1905, 1, 'The immigration of Chinese laborers stands by itself.'],
    ['h6', 1908, 1, 'No change is proposed in the immigration law as regards Chinese laborers.'],
    ['h7', 1924, 1, 'The immigration quotas are now in force.'],
    ['h8', 1927, 1, 'Immigration quotas by national origins take effect.'],
    ['h9', 1901, 1, 'Steamship companies bring immigration we must refuse.'],
    ['h10', 1903, 1, 'The steamship companies profit from immigration.'],
    ['h11', 1953, 1, 'Refugee immigration from Europe must be admitted.'],
    ['h12', 1956, 1, 'The refugee relief act eased immigration.'],
    ['h13', 1960, 1, 'Immigration is a source of strength.'],
    ['h14', 1929, 1, 'Immigration quotas have reduced the numbers.'],
  ];
  const titles = new Map(said.map(([id, year]) => [id, `${year}, President ${year}`]));
  const findings = said.map(([id, , score, text]) => ({ id: `${id}~q`, sourceId: id, quote: text, claim: text, subtopicId: 'overview', relevance: { score, topicTerms: [], facetTerms: [] } }));
  const { shown, yearOf } = quotesOf([{ subtopicId: 'evidence', title: '', findings }], titles);
  const report = themedReport(shown[0]!.quotes, 'immigration', 25, titles, { vocabulary: GENERIC_VOCABULARY, isName: () => false }, yearOf, (id) => said.find((p) => p[0] === id)?.[3]);

  it("shows the quotes of the decades it is most said in, so its few quotes keep its period", () => {
    const chinese = report!.sections.find((s) => /Chinese laborers/.test(s.title))!;
    expect(chinese.title).toMatch(/^188\d–188\d: /);
    expect(report!.summary).toMatch(/Chinese laborers in the 1880s/i);
  });

  it('makes no theme of a phrase only two passages share', () => {
    // Steamship companies and refugees are said in two passages each: no section of their own.
    expect(report!.sections.map((s) => s.title).join(' ')).not.toMatch(/steamship|refugee/i);
  });
});

describe('themedReport, a subject word said in another sense', () => {
  // "Environment" as the natural world in six passages, and as the climate for small business in three.
  const said: [string, number, string][] = [
    ['n1', 1970, 'Clean air is the first task of our environment policy.'],
    ['n2', 1972, 'The environment needs clean air and pure water.'],
    ['n3', 1974, 'Our environment is safer: clean air standards are met.'],
    ['n4', 1990, 'The national parks are the crown of our environment.'],
    ['n5', 1992, 'We protect the environment by adding national parks.'],
    ['n6', 1994, 'New national parks protect the environment of the desert.'],
    ['b1', 1946, 'Small business needs a favorable environment for its growth.'],
    ['b2', 1950, 'Small business must have an economic environment in which it may prosper.'],
    ['b3', 1956, 'A fair environment for small business is our aim.'],
  ];
  const titles = new Map(said.map(([id, year]) => [id, `${year}, President ${year}`]));
  const findings = said.map(([id, , text]) => ({ id: `${id}~q`, sourceId: id, quote: text, claim: text, subtopicId: 'overview', relevance: { score: 1, topicTerms: [], facetTerms: [] } }));
  const { shown, yearOf } = quotesOf([{ subtopicId: 'evidence', title: '', findings }], titles);
  const write = (ctx: Partial<ProseContext>) => themedReport(shown[0]!.quotes, 'environment', 25, titles, { vocabulary: GENERIC_VOCABULARY, isName: () => false, ...ctx }, yearOf, (id) => said.find((p) => p[0] === id)?.[2]);
  // What "environment" keeps company with across the corpus: the natural world's words, not business.
  const company = new Map(analyzeTerms('clean air water parks protect pollution').map((t) => [t, 1]));

  it('makes no theme of passages that say none of the words the subject keeps company with', () => {
    const titled = write({ company: () => company })!.sections.map((s) => s.title.replace(/^[0-9–]+: /, ''));
    expect(titled).toEqual(expect.arrayContaining(['Clean air', 'National parks']));
    expect(titled.join(' ')).not.toMatch(/business/i);
  });

  it('reads every passage as on the subject when the corpus knows no company for it', () => {
    expect(write({ company: () => new Map() })!.sections.map((s) => s.title).join(' ')).toMatch(/Small business/);
  });
});

describe('subjectSentences', () => {
  const text = 'The environment is a public trust. Clean air and clean water are our goal. The budget is balanced. Our environment needs care.';
  const found = subjectSentences(text, new Set(analyzeTerms('environment')));

  it('holds each sentence that names the subject, and with it the sentence after it, verbatim', () => {
    // "Clean air" is what the passage says of the environment, one sentence on: a theme is found, and quoted, there.
    expect(found).toContain('The environment is a public trust.');
    expect(found).toContain('The environment is a public trust. Clean air and clean water are our goal.');
    expect(found).toContain('Our environment needs care.');
    for (const s of found) expect(text.includes(s)).toBe(true);
  });

  it('pairs no sentence it does not follow: a sentence that names no subject alone, or two sentences apart, is not held', () => {
    expect(found).not.toContain('The budget is balanced.');
    expect(found.some((s) => s.includes('The budget'))).toBe(false);
  });

  it('holds no sentence that names the subject only as one item of a list ("health care, and the environment")', () => {
    const stems = new Set(analyzeTerms('environment'));
    const listed = [
      'My proposals on revenue sharing, government reorganization, health care, and the environment have now been before the Congress for nearly a year.',
      'Excellent schools, quality health care, a secure retirement, a cleaner environment, a stronger defense: These are all important needs.',
    ];
    for (const sentence of listed) expect(subjectSentences(sentence, stems)).toEqual([]);
    // A sentence about the subject with commas in it is still about the subject.
    const about = 'We must protect the environment, which sustains us, and we must do it now.';
    expect(subjectSentences(about, stems)).toEqual([about]);
  });

  it('holds a sentence that says the subject\'s stem in another sense only when `says` allows it ("the House" for housing)', () => {
    const text = 'The House passed the bill. Public housing for veterans is scarce.';
    const says = (sentence: string): boolean => /\bhousing\b/i.test(sentence);
    expect(subjectSentences(text, new Set(analyzeTerms('housing')), says)).toEqual(['Public housing for veterans is scarce.']);
  });
});

describe('arcSentence', () => {
  it('keeps the capital of a name of several capitalized words, and lowercases a common phrase', () => {
    const ctx = { vocabulary: GENERIC_VOCABULARY, isName: () => false };
    expect(arcSentence([{ title: 'Railroad subsidy', decade: 1890 }, { title: 'Interstate Commerce Commission', decade: 1900 }], ctx)).toBe(
      'The passages move from railroad subsidy in the 1890s to Interstate Commerce Commission in the 1900s.',
    );
  });
});
