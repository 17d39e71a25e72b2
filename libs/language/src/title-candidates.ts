import { nounPhrases, stemWord } from './text-analysis';

/** Which nouns and noun phrases of a text can name a topic: never a month, an office, filler or a number. */

/** Words that name when or who holds a post, not what a section is about. */
const NOT_A_TOPIC = new Set(
  (
    'january february march april may june july august september october november december ' +
    'monday tuesday wednesday thursday friday saturday sunday ' +
    'secretary president vice presidents secretaries congress senate senator senators representative representatives ' +
    'department departments commissioner commissioners attorney general minister ministers governor governors chairman ' +
    'committee committees bureau office offices officer officers chief director administration administrations ' +
    'year years fiscal month months day days week weeks session sessions time times today tonight ' +
    'message report reports annual mr mrs sir gentlemen fellow citizens thing things way ways part lot kind ' +
    'shall will would should could must may might also upon within without'
  ).split(' '),
);
/** Words that say nothing alone but belong to a name when capitalized in one ("New York", "First Amendment"). */
const NAME_PARTS = new Set('one two three first second third last new old north south east west great'.split(' '));
/** A pronoun's contraction ("I'm", "we've") is no noun, whatever the tagger says. */
const CONTRACTION = /^(i|you|we|they|he|she|it|that|there|let)['’]/i;
const BANNED_STEMS = new Set([...NOT_A_TOPIC].map((w) => stemWord(w)));
const NAME_PART_STEMS = new Set([...NAME_PARTS].map((w) => stemWord(w)));

/** Two or more capitalized words: a name, whose parts may be words that alone say nothing. */
export const isNamePhrase = (words: readonly string[]): boolean => words.length > 1 && words.every((w) => /^\p{Lu}/u.test(w));

/** Whether stems can title a section: none a month, an office or filler; a name part only inside a name. */
export const allowedTitleStems = (stems: readonly string[], name: boolean): boolean => !stems.some((k) => BANNED_STEMS.has(k) || (!name && NAME_PART_STEMS.has(k)));

export interface TitleCandidate {
  /** As written in a quote ("steamship companies"). */
  surface: string;
  /** Its stems ("steamship compani"). */
  key: string;
}

/** Nouns and two-word noun phrases of a text, as written, that can title a section (no month, office or number). */
export function titleCandidates(text: string): TitleCandidate[] {
  return nounPhrases(text).filter((c) => {
    const words = c.surface.split(' ');
    const name = isNamePhrase(words);
    const wordsOk = words.every((w, i) => {
      const low = w.toLowerCase().replace(/['’]s$/, '');
      return w.length >= 3 && /^\p{L}[\p{L}'’-]*\p{L}$/u.test(w) && !CONTRACTION.test(w) && !NOT_A_TOPIC.has(low) && (!NAME_PARTS.has(low) || (name && i < words.length - 1));
    });
    return wordsOk && allowedTitleStems(c.key.split(' '), name);
  });
}

