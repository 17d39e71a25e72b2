import { describe, expect, it } from 'vitest';
import { CorpusIndex } from '../index/corpus-index';
import type { CorpusVocabulary, Passage } from '@orrery/passages';
import { answerQuestion, surfaceMatcher } from './question-answer';

const VOCABULARY: CorpusVocabulary = {
  document: 'annual speech',
  documents: 'annual speeches',
  author: 'governor',
  authors: 'governors',
  documentAliases: ['speech to the assembly'],
  authorAliases: { AQ: 'Ada Quill' },
};

/** Seven dated speeches by three governors, three paragraphs each; the titles read "<year>, <name>". */
function speeches(): CorpusIndex {
  const body: Record<number, [string, string]> = {
    1901: ['Ada Quill', 'The treasury proposes a tax upon the incomes of foreign traders, and the harbor needs dredging.'],
    1902: ['Ada Quill', 'Canal tolls must fall so that grain reaches the sea; the canal is our artery.'],
    1903: ['Ada Quill', 'We uphold the Vale Doctrine: no foreign fleet shall anchor in our bays.'],
    1904: ['Bram Quill', 'A graduated income tax would spread the burden fairly. The canal tolls stay as they are.'],
    1905: ['Bram Quill', 'The income tax has paid for the new schools; every district now has one.'],
    1906: ['Cora Vale', 'Our schools and roads come first this year, and the railway reaches the hills.'],
    1907: ['Cora Vale', 'The railway now carries ore; the mines employ four thousand people in the hills.'],
  };
  const passages: Passage[] = [];
  for (const [y, [name, text]] of Object.entries(body)) {
    const title = `${y}, ${name}`;
    const slug = name.split(' ')[1]!.toLowerCase();
    passages.push({ id: `${y}-${slug}-p1`, title, text: `Members of the assembly: I report on the year ${y} with gratitude for a good harvest.` });
    passages.push({ id: `${y}-${slug}-p2`, title, text });
    passages.push({ id: `${y}-${slug}-p3`, title, text: 'The militia is ready and the lighthouses are lit. I thank the assembly for its counsel.' });
  }
  return new CorpusIndex(passages);
}

const ask = (q: string) => answerQuestion(speeches(), VOCABULARY, q)!;

describe('answerQuestion', () => {
  it('answers "first" and "last" from the documents’ years and authors', () => {
    const first = ask('In what year did Bram Quill first deliver an annual speech?');
    expect(first.found).toBe(true);
    expect(first.text).toMatch(/^1904: Bram Quill’s first annual speech in the corpus is that of 1904\./);
    expect(first.evidence[0]!.id).toBe('1904-quill-p1');
    expect(ask('When did Cora Vale deliver her last speech to the assembly?').text).toMatch(/^1907:/);
    expect(ask('Who delivered the most recent annual speech?').text).toMatch(/^Cora Vale: the last annual speech/);
  });

  it('answers "who" for a named year, and "how many"', () => {
    const who = ask('Who delivered the annual speech in 1906?');
    expect(who.text).toMatch(/^Cora Vale: the annual speech of 1906 is Cora Vale’s\./);
    expect(who.evidence[0]!.id).toBe('1906-vale-p1');
    const many = ask('How many annual speeches did AQ deliver?');
    expect(many.text).toMatch(/^3: the corpus holds 3 annual speeches by Ada Quill \(1901, 1902 and 1903\)\./);
  });

  it('finds the earliest document that says the subject as a concept: "tax upon the incomes" is the income tax', () => {
    const tax = ask('When did a governor first mention the income tax?');
    expect(tax.text).toMatch(/^1901: the first annual speech in the corpus to mention “income tax” is Ada Quill’s, of 1901\./);
    expect(tax.evidence[0]!.quote).toBe('The treasury proposes a tax upon the incomes of foreign traders, and the harbor needs dredging.');
    expect(tax.text).toContain('In all, 3 annual speeches mention it, from 1901 to 1905.');
    expect(ask('Which governor last mentioned the income tax?').text).toMatch(/^Bram Quill is the last governor in the corpus to mention “income tax”, in the annual speech of 1905\./);
  });

  it('cuts the subject out of question forms that put it before the verb or after a verb of sending', () => {
    // "come up" and "send to" are how the question asks; the subject is "railway", then none (the speeches themselves).
    const railway = ask('In what year did the railway first come up in a governor’s annual speech?');
    expect(railway.signals.subject).toBe('railway');
    expect(railway.text).toMatch(/^1906:/);
    // "the issue of", "the matter of" frame the subject: it is "canal tolls", as if the question said "mention canal tolls".
    const issue = ask('Which governor first raised the issue of canal tolls?');
    expect(issue.signals.subject).toBe('canal tolls');
    expect(issue.text).toMatch(/^Ada Quill is the first governor in the corpus to mention “canal tolls”, in the annual speech of 1902\./);
    expect(ask('When did a governor first touch on the matter of the income tax?').signals.subject).toBe('income tax');
    const sent = ask('How many annual speeches did Ada Quill send to the assembly?');
    expect(sent.text).toMatch(/^3: /);
  });

  it('answers a question whose question words follow a preposition, a topic, or come last', () => {
    expect(ask('In how many annual speeches did Bram Quill mention the income tax?').text).toMatch(/^2: 2 annual speeches by Bram Quill mention “income tax”/);
    expect(ask('Canal tolls were first mentioned in which year?').text).toMatch(/^1902: the first annual speech in the corpus to mention “Canal tolls” is Ada Quill’s/);
    expect(ask('The income tax: who last brought it up?').text).toMatch(/^Bram Quill is the last governor in the corpus to mention “income tax”, in the annual speech of 1905\./);
    expect(ask('The railway was first mentioned by whom').text).toMatch(/^Cora Vale is the first governor in the corpus to mention “railway”, in the annual speech of 1906\./);
  });

  it('reads a capitalized subject as a name, not as the common words it is made of', () => {
    // Ada Quill's "foreign traders" are traders from abroad, not a ship called the Foreign Trader.
    expect(ask('Did Ada Quill ever mention the Foreign Trader?').text).toMatch(/^No: no annual speech by Ada Quill in the corpus mentions “Foreign Trader”/);
    expect(ask('Did Ada Quill ever mention a foreign trader?').text).toMatch(/^Yes: Ada Quill mentions “foreign trader” in the annual speech of 1901\./);
  });

  it('reads a name as the subject, not the speaker, where the question says so', () => {
    // "Vale" is Cora Vale's surname, but here it names a doctrine Ada Quill proclaimed.
    const doctrine = ask('Which governor first spoke of the Vale Doctrine?');
    expect(doctrine.text).toMatch(/^Ada Quill is the first governor in the corpus to mention “Vale Doctrine”, in the annual speech of 1903\./);
    // "Quill" alone names both Quills: either may have said it.
    expect(ask('When did Quill first mention canal tolls?').text).toMatch(/^1902:/);
  });

  it('answers "most": the governor with the most speeches that say it, and the speech that says it most', () => {
    expect(ask('Which governor mentioned the canal most often?').text).toMatch(/^Ada Quill mentions “canal” in more annual speeches than any other governor: 1 \(1902\), ahead of Bram Quill \(1\)\./);
    expect(ask('Which governor used the phrase "income tax" the most?').text).toMatch(/^Bram Quill mentions “income tax” in more annual speeches than any other governor: 2 \(1904 and 1905\), ahead of Ada Quill \(1\)\./);
  });

  it('says plainly when the corpus does not hold the answer, with the closest evidence', () => {
    const no = ask('Did Cora Vale mention the canal?');
    expect(no.found).toBe(false);
    expect(no.text).toMatch(/^No: no annual speech by Cora Vale in the corpus mentions “canal”\. The earliest that does is Ada Quill’s of 1902:/);
    expect(no.evidence[0]!.id).toBe('1902-quill-p2');
    const none = ask('Who delivered the annual speech in 1950?');
    expect(none.found).toBe(false);
    expect(none.text).toBe('The corpus holds no annual speech from 1950. The nearest is Cora Vale’s of 1907.');
    const yes = ask('Did Ada Quill mention the canal?');
    expect(yes.text).toMatch(/^Yes: Ada Quill mentions “canal” in the annual speech of 1902\./);
  });

  it('has no answer for a question without a single answer, or a corpus without dated documents', () => {
    expect(answerQuestion(speeches(), VOCABULARY, 'How have governors talked about schools?')).toBeNull();
    const undated = new CorpusIndex(Array.from({ length: 12 }, (_, i) => ({ id: `p${i}`, title: `p${i}`, text: `Passage ${i} about canal tolls.` })));
    expect(answerQuestion(undated, VOCABULARY, 'When were canal tolls first mentioned?')).toBeNull();
  });
});

describe('surfaceMatcher', () => {
  it('matches the words in order, as close as the question writes them, in singular or plural, or written as two, or a compound turned round', () => {
    expect(surfaceMatcher(['income', 'tax'])('graduated income taxes')).toBe(true);
    expect(surfaceMatcher(['income', 'tax'])('a tax upon the incomes')).toBe(true);
    expect(surfaceMatcher(['income', 'tax'])('the tax on incomes')).toBe(true);
    expect(surfaceMatcher(['climate', 'change'])('the change of climate')).toBe(false);
    expect(surfaceMatcher(['climate', 'change'])('the climate has changed')).toBe(false);
    expect(surfaceMatcher(['war', 'poverty'], [[], ['on']])('declares unconditional war on poverty')).toBe(true);
    // Only the question's own joining words (and an article) may stand between: "war and terror" is not the war on terror.
    expect(surfaceMatcher(['war', 'terror'], [[], ['on']])('the war on terror goes on')).toBe(true);
    expect(surfaceMatcher(['war', 'terror'], [[], ['on']])('a weapon of war and terror')).toBe(false);
    expect(surfaceMatcher(['airplanes'])('It needs airplane carriers')).toBe(true);
    expect(surfaceMatcher(['Vietnam'])('our aid to Viet-Nam')).toBe(true);
    expect(surfaceMatcher(['terrorism'])('a reign of terror')).toBe(false);
  });

  it('finds a name capitalized, or in lower case only as the question writes it', () => {
    const unitedNations = surfaceMatcher(['United', 'Nations'], [[], []], true);
    expect(unitedNations('the consolidation of the United Nations’ war effort')).toBe(true);
    expect(unitedNations('the united nations met')).toBe(true);
    expect(unitedNations('A strong and united nation may be destroyed')).toBe(false);
    expect(surfaceMatcher(['united', 'nations'])('A strong and united nation may be destroyed')).toBe(true);
    expect(surfaceMatcher(['Cold', 'War'], [[], []], true)('we can’t win the cold war or a hot one')).toBe(true);
  });
});
