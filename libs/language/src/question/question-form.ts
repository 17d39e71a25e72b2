/**
 * The form of a question, read from its words: what kind of single answer it expects (a time, a person,
 * a count, yes or no, a document, a fact), whether it asks for the first or the last of something, and
 * which years it names. Language only: no corpus is needed, so the coordinator's classification and an
 * engine's answer read the same form from the same text.
 */

/** What a question with one expected answer asks for. */
export type AnswerKind = 'time' | 'person' | 'count' | 'yes-no' | 'document' | 'fact';

export interface YearRange {
  from: number;
  to: number;
}

export interface QuestionForm {
  /** The words that open the question ("in what year", "who", "how many", "did"), or null for a topic. */
  opener: string | null;
  /** The single answer the question expects, or null when it asks for many things, a manner or a reason. */
  expects: AnswerKind | null;
  /** Whether the question asks for the earliest or the latest instance ("first", "most recent"). */
  ordinal: 'earliest' | 'latest' | null;
  /** The years the question names ("in 1862", "between 1900 and 1920", "in the 1930s", "before 1850"). */
  years: YearRange | null;
  /** The question asks for the one that did something most ("most often", "more than any other"). */
  most: boolean;
  /** The answer asked for is a list ("which presidents", "who were all", "what are the main"). */
  many: boolean;
  /** Which rule decided `expects`. */
  rule: string;
}

const EARLIEST = /\b(first|earliest|initially|originally)\b/i;
const MOST = /\b(most(?!\s+recent)|more\s+than\s+any(one)?)\b/i;
const LATEST = /\b(last|latest|final|most\s+recent(ly)?)\b/i;

/** Answer-kind nouns after "what" / "which". */
const TIME_NOUN = '(year|years|decade|date|month|day|century|era|period|time)';
const PERSON_NOUN = '(president|presidents|person|people|man|men|woman|women|leader|leaders|speaker|speakers|author|authors|administration|administrations)';
const DOCUMENT_NOUN = '(address|addresses|speech|speeches|message|messages|document|documents|article|articles|state\\s+of\\s+the\\s+union)';

/** A preposition before a question word that leaves the kind of answer as it is ("By which president", "In how many"). */
const LEAD = '((by|from|to|for|with|under|of|in|on|over|across|during)\\s+)?';

/** First match wins; each yields the kind of answer and whether the noun asks for several. */
const OPENERS: { rule: string; re: RegExp; expects: AnswerKind | null }[] = [
  { rule: 'in-what-time', re: new RegExp(`^(in|on|during|by|from)\\s+(what|which)\\s+${TIME_NOUN}\\b`, 'i'), expects: 'time' },
  { rule: 'what-time', re: new RegExp(`^(what|which)\\s+${TIME_NOUN}\\b`, 'i'), expects: 'time' },
  { rule: 'when', re: /^when\b/i, expects: 'time' },
  { rule: 'how-many', re: new RegExp(`^${LEAD}how\\s+(many|often)\\b`, 'i'), expects: 'count' },
  { rule: 'how-measure', re: /^how\s+(much|long|old|far|big|large|high|tall)\b/i, expects: 'fact' },
  { rule: 'in-which-document', re: new RegExp(`^(in|by|from)\\s+(which|whose|what)\\s+${DOCUMENT_NOUN}`, 'i'), expects: 'document' },
  { rule: 'which-document', re: new RegExp(`^(which|what)\\s+(\\w+\\s+)?${DOCUMENT_NOUN}`, 'i'), expects: 'document' },
  { rule: 'which-person', re: new RegExp(`^${LEAD}(which|what)\\s+${PERSON_NOUN}\\b`, 'i'), expects: 'person' },
  { rule: 'who', re: new RegExp(`^${LEAD}(who|whom|whose)\\b`, 'i'), expects: 'person' },
  { rule: 'where', re: /^where\b/i, expects: 'fact' },
  // "What did Lincoln say about slavery?" asks for what was said, many things unless a year or an ordinal narrows it.
  { rule: 'what-said', re: /^what\s+(did|do|does|have|has|had)\b.*\b(say|said|says|think|thought|propose|proposed|argue|argued|write|wrote|tell|told|mean|want|promise|promised)\b/i, expects: null },
  // "What happened to the salmon?" asks for an account, not one fact (unless a year or an ordinal narrows it).
  { rule: 'what-happened', re: /^what\s+((has|have|had)\s+)?(happened|happens|changed|became|becomes)\b/i, expects: null },
  { rule: 'what-is', re: /^(what|which)\s+(is|was|are|were)\b/i, expects: 'fact' },
  // "Which treaty …", "What name …": a noun after the question word names the one thing asked for.
  { rule: 'which-thing', re: /^(what|which)\s+(?!(did|do|does|has|have|had|will|would|can|could|should|may|might|must)\b)\w+/i, expects: 'fact' },
  { rule: 'yes-no', re: /^(did|does|do|is|are|was|were|has|have|had|can|could|will|would|should|was)\b/i, expects: 'yes-no' },
  { rule: 'how-why', re: /^(how|why)\b/i, expects: null },
];

/** A list is asked for: a plural answer noun, "all", "every", "the main". */
const MANY = new RegExp(
  [
    `^${LEAD}(which|what)\\s+(presidents|people|men|women|leaders|speakers|authors|administrations)\\b`,
    '^who\\s+(were|are|have)\\b',
    '^(what|which)\\s+(are|were)\\s+(the\\s+)?(main|major|key|different|various|several)\\b',
    '\\b(all|every|each|various|list|enumerate)\\b',
    '\\b(themes|topics|issues|ways|aspects|kinds|types|examples|reasons|arguments)\\b',
  ].join('|'),
  'i',
);

const YEAR = '(1[5-9][0-9]{2}|20[0-9]{2})';
const CENTURY_WORDS: Record<string, number> = { sixteenth: 16, seventeenth: 17, eighteenth: 18, nineteenth: 19, twentieth: 20, 'twenty-first': 21, 'twenty first': 21 };

/** The years a text names: a range, a decade, a century, a bound (before / after), or one year. */
export function namedYears(text: string): YearRange | null {
  let m = new RegExp(`\\b(?:between|from)\\s+${YEAR}\\s+(?:and|to|until|through)\\s+${YEAR}\\b`, 'i').exec(text) ?? new RegExp(`\\b${YEAR}\\s*[-–—]\\s*${YEAR}\\b`).exec(text);
  if (m) return ordered(Number(m[1]), Number(m[2]));
  m = /\b(1[5-9][0-9]|20[0-9])0['’]?s\b/.exec(text);
  if (m) return { from: Number(m[1]) * 10, to: Number(m[1]) * 10 + 9 };
  m = /\b([0-9]{2})(?:st|nd|rd|th)\s+century\b/i.exec(text);
  const word = /\b(sixteenth|seventeenth|eighteenth|nineteenth|twentieth|twenty[- ]first)\s+century\b/i.exec(text);
  const century = m ? Number(m[1]) : word ? CENTURY_WORDS[word[1]!.toLowerCase().replace(/\s+/, ' ')] : undefined;
  if (century) return { from: (century - 1) * 100 + 1, to: century * 100 };
  m = new RegExp(`\\b(before|prior\\s+to|until|by)\\s+${YEAR}\\b`, 'i').exec(text);
  if (m) return { from: 0, to: Number(m[2]) - (/^by|until/i.test(m[1]!) ? 0 : 1) };
  m = new RegExp(`\\b(after|since)\\s+${YEAR}\\b`, 'i').exec(text);
  if (m) return { from: Number(m[2]) + (/^after/i.test(m[1]!) ? 1 : 0), to: 9999 };
  m = new RegExp(`\\b${YEAR}\\b`).exec(text);
  return m ? { from: Number(m[1]), to: Number(m[1]) } : null;
}

const ordered = (a: number, b: number): YearRange => ({ from: Math.min(a, b), to: Math.max(a, b) });

/** Framing before the question itself: "Tell me", "In 1941,", "According to the speeches,". */
function questionPart(text: string): string {
  return text
    .replace(/^\s*(please\s+)?((can|could|would)\s+you\s+)?(tell\s+me|do\s+you\s+know|i\s+(would|'d)\s+like\s+to\s+know|i\s+want\s+to\s+know)\s*,?\s*/i, '')
    // An imperative asks as a question word does: "Name the first president who …" is "Which president …",
    // "(Tell me) the year Roosevelt …" is "What year …".
    .replace(/^\s*(name|identify|give|find)\s+(me\s+)?(the\s+)?((first|last|earliest|latest|most\s+recent|final)\s+)?/i, 'which ')
    .replace(/^\s*the\s+(year|date|decade)\b/i, 'what $1')
    .replace(/^\s*(in|during|by|on|at|from|after|before|since|according\s+to)\s+[^,?]{1,60},\s*/i, '')
    .trim();
}

/** A topic set before the question: "Yellow fever: who first brought it up?". */
const TOPIC_FIRST = /^[^:;?—–]{1,80}?\s*(?::|;|—|–|\s-\s)\s*(.+)$/u;
/**
 * The question words at the end: "Smallpox was last mentioned by which president?", "… in which year", "… by whom",
 * "… came in which president's address?" (a person's document: the person is asked for).
 */
const WORDS_LAST = new RegExp(`^(.+?)[\\s,]+(${LEAD}(which|what|whose)\\s+(${TIME_NOUN}|${PERSON_NOUN}(?:['’]s\\s+${DOCUMENT_NOUN})?|${DOCUMENT_NOUN})|${LEAD}(who|whom)|when)\\s*[?.!]*$`, 'i');

/**
 * The question as it would open with its question words: as written, or, when they stand after a topic
 * or at the end, with them brought first ("by which president smallpox was last mentioned").
 */
function readings(q: string): string[] {
  const topicFirst = TOPIC_FIRST.exec(q);
  const wordsLast = WORDS_LAST.exec(q);
  return [q, ...(topicFirst ? [topicFirst[1]!] : []), ...(wordsLast ? [`${wordsLast[2]} ${wordsLast[1]}`] : [])];
}

/** Reads the form of a question (or of a topic, which has none). */
export function questionForm(topic: string): QuestionForm {
  const text = topic.normalize('NFC').replace(/\s+/g, ' ').trim();
  const asked = readings(questionPart(text));
  const q = asked.find((r) => OPENERS.some((o) => o.re.test(r))) ?? asked[0]!;
  const ordinal = EARLIEST.test(text) ? 'earliest' : LATEST.test(text) ? 'latest' : null;
  const years = namedYears(text);
  const many = MANY.test(q);
  const most = MOST.test(text);
  const opener = OPENERS.find((o) => o.re.test(q));
  if (!opener) return { opener: null, expects: null, ordinal, years, most, many, rule: 'no-question-form' };
  const words = opener.re.exec(q)![0].toLowerCase();
  let expects = many ? null : opener.expects;
  let rule = many ? 'asks-for-many' : opener.rule;
  // "What did Lincoln say in 1862?", "How did presidents first speak of radio?": a year or an ordinal narrows a
  // question about what was said to one passage.
  if (expects === null && !many && (opener.rule === 'what-said' || opener.rule === 'what-happened') && (years || ordinal)) {
    expects = 'fact';
    rule = 'what-said-narrowed';
  }
  if (expects === null && !many && opener.rule === 'how-why' && /^how\b/i.test(q) && ordinal) {
    expects = 'fact';
    rule = 'how-first';
  }
  return { opener: words, expects, ordinal, years, most, many, rule };
}

/** "How do I …", "How can we …", "How to …": a question that asks how to do one thing. */
const HOW_TO = /^\s*how\s+(?:(?:do|can|could|should|would|may|might)\s+(?:i|we|you|one)|to)\b/i;

/** Whether a question asks how to do something: its answer is the one way shown, not a survey of all that matches. */
export function asksHowTo(question: string): boolean {
  return HOW_TO.test(question);
}
