import { isIPv6 } from 'node:net';
import { cnResidentIdValid, ibanValid, luhnValid } from './checksums';
import { IBAN_LENGTHS } from './iban-lengths';

/** The kinds of personal data `redact` removes. */
export const REDACTION_KINDS = ['email', 'iban', 'national_id', 'card', 'ssn', 'ipv6', 'ipv4', 'phone'] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

export interface RedactionRule {
  kind: RedactionKind;
  /** What it matches, as the detection view reads text (ASCII separators: ' ', '.', '-'). */
  pattern: RegExp;
  /** A check on the matched text; a match that fails it is left alone. */
  accept?: (match: string) => boolean;
  /** For a pattern that can run on past the value (an IBAN into the next word): how much of the match is the value, 0 for none. */
  take?: (match: string) => number;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|[01]?\\d?\\d)'; // 0-255, zero-padded or not: 10, 010, 001
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
/** A digit run starts here: not inside a word, a number (1,234 or 3.5), an amount ($…) or an international number (+…). */
const START = '(?<![\\w.,$€£¥+-])';
/** …and ends here: no further digit, letter, or decimal/thousands part. */
const END = '(?![\\w]|[.,-]\\d)';
const digitsOf = (m: string) => m.replace(/\D/g, '');
const digitCount = (min: number, max: number) => (m: string) => {
  const n = digitsOf(m).length;
  return n >= min && n <= max;
};
/** Card digit groups: any of ' ', '.', '-', '/' between them, mixed or not; the Luhn check vouches for the number. */
const CARD_SEP = '[ ./-]';

/**
 * The IBAN at the start of `match`: as many characters as its country's IBAN has, ending where a group ends, if
 * they pass mod-97. The pattern reads groups of four greedily, so a lower-case IBAN may have taken the next word.
 */
function ibanPrefix(match: string): number {
  const length = IBAN_LENGTHS[match.slice(0, 2).toUpperCase()];
  if (!length) return 0;
  let seen = 0;
  for (let i = 0; i < match.length; i++) {
    if (match[i] !== ' ' && match[i] !== '-') seen++;
    if (seen === length) {
      const end = i + 1;
      const atGroupEnd = end === match.length || match[end] === ' ' || match[end] === '-';
      return atGroupEnd && ibanValid(match.slice(0, end)) ? end : 0;
    }
  }
  return 0;
}

/**
 * Every redaction rule, in the order they run: an earlier rule's match is taken out before later rules read the
 * text (an 18-digit resident id is never read as a card, nor an e-mail's digits as a phone). Bare digit runs are
 * redacted only where a checksum or a tight shape vouches for them, so years, amounts and bill numbers survive;
 * `npm run bench:redaction` counts what the rules take from the State of the Union speeches.
 */
export const REDACTION_RULES: readonly RedactionRule[] = [
  {
    kind: 'email',
    // Starts only where a run of local-part characters starts: tried from inside a long run (a 200k-character
    // base64 blob), each start scanned to the run's end for an '@', quadratic in the run's length.
    // Letters and digits of any script (RFC 6531 local parts, IDN domains: 用户@example.com, john@bücher.de).
    pattern:
      /(?<![\p{L}\p{M}\p{N}._%+-])[\p{L}\p{M}\p{N}._%+-]+@[\p{L}\p{M}\p{N}-]+(?:\.[\p{L}\p{M}\p{N}-]+)*\.(?:\p{L}[\p{L}\p{M}]+|xn--[A-Za-z0-9-]+)/gu,
  },
  {
    kind: 'iban',
    // Country code, check digits, then groups of four (by spaces, dashes or none, one separator throughout) and a
    // short tail, in either case; the country's registered length and mod-97 checked.
    pattern: /\b[A-Za-z]{2}\d{2}([ -]?)[A-Za-z0-9]{4}(?:\1[A-Za-z0-9]{4}){1,6}(?:\1[A-Za-z0-9]{1,4})?\b/g,
    take: ibanPrefix,
  },
  {
    kind: 'national_id',
    // Chinese resident id: 6-digit region, birth date, 3-digit sequence, MOD 11-2 check character.
    pattern: new RegExp(`${START}\\d{6}(?:18|19|20)\\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\\d|3[01])\\d{3}[\\dXx]${END}`, 'g'),
    accept: cnResidentIdValid,
  },
  {
    kind: 'card',
    // 19 digits as 4-4-4-4-3; before the shorter forms, which would take its first 16.
    // Card numbers start with 2-6 (Mastercard 2/5, Amex 3, Visa 4, Discover and UnionPay 6): not a 1700000000000 ms time.
    pattern: new RegExp(`${START}[2-6]\\d{3}(?:${CARD_SEP}\\d{4}){3}${CARD_SEP}\\d{3}${END}`, 'g'),
    accept: (m) => luhnValid(digitsOf(m)),
  },
  {
    kind: 'card',
    // 4-4-4-4 or 4-6-4/5, or 13 to 19 digits in a row, from 2-6; Luhn checked.
    pattern: new RegExp(
      `${START}(?=[2-6])(?:\\d{4}(?:${CARD_SEP}\\d{4}){3}|\\d{4}${CARD_SEP}\\d{6}${CARD_SEP}\\d{4,5}|\\d{13,19})${END}`,
      'g',
    ),
    accept: (m) => luhnValid(digitsOf(m)),
  },
  {
    kind: 'ipv6',
    pattern: new RegExp(`(?<![\\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:${IPV4}|[0-9A-Fa-f]{0,4})(?![\\w:])`, 'g'),
    accept: (m) => /[0-9A-Fa-f]/.test(m) && isIPv6(m),
  },
  { kind: 'ipv4', pattern: new RegExp(`(?<![\\d.])${IPV4}(?!\\.?\\d)`, 'g') },
  {
    kind: 'ssn',
    // US SSN 3-2-4, by dashes, spaces, dots or none (one separator throughout); never area 000, 666 or 9xx, group 00, serial 0000.
    pattern: new RegExp(`${START}(?!000|666|9\\d\\d)\\d{3}([ .-]?)(?!00)\\d{2}\\1(?!0000)\\d{4}${END}`, 'g'),
  },
  {
    kind: 'phone',
    pattern: new RegExp(
      [
        // International: +CC, an optional (area), then groups.
        '(?<![\\w+])\\+\\d{1,3}[ .-]?(?:\\(\\d{1,4}\\)[ .-]?)?\\d{1,4}(?:[ .-]?\\d{2,4}){1,4}(?![\\w])',
        // International as dialled from Europe: 00 for the +, a country code (never 0), then groups: 0044 20 7946 0958.
        // Not a group inside a longer run of groups (an IBAN with a bad checksum: DE89 3704 0044 0532 0130 01).
        `${START}(?<!\\d[ ./-])00[1-9]\\d{0,2}[ .-]?(?:\\(\\d{1,4}\\)[ .-]?)?\\d{1,4}(?:[ .-]?\\d{2,4}){1,4}${END}`,
        // North American, with or without the country code 1: (415) 555-0100, 1-415-555-0100, 415/555-0100, 555 123 4567.
        `${START}(?:1[ .-]?)?(?:\\(\\d{3}\\) ?|\\d{3}[ ./-])\\d{3}[ .-]\\d{4}${END}`,
        // North American, bare: ten digits, the area code not starting with 0 or 1.
        `${START}[2-9]\\d{9}${END}`,
        // Chinese mobile: 11 digits from 13x-19x, bare or 3-4-4.
        `${START}1[3-9]\\d(?:([ -]?)\\d{4}\\1)\\d{4}${END}`,
      ].join('|'),
      'g',
    ),
    // A bare run ending in 0000 is a round number (3000000000), not a phone.
    accept: (m) => digitCount(8, 15)(m) && !/^\d+0000$/.test(m),
  },
];
