import { isIPv6 } from 'node:net';

/** The kinds of personal data `redact` removes. */
export const REDACTION_KINDS = ['email', 'iban', 'card', 'ssn', 'ipv6', 'ipv4', 'phone'] as const;
export type RedactionKind = (typeof REDACTION_KINDS)[number];

export interface RedactionResult {
  text: string;
  /** How many values of each kind were replaced. Never the values themselves. */
  counts: Record<RedactionKind, number>;
}

export const redactionMarker = (kind: RedactionKind): string => `[REDACTED:${kind}]`;

/** Luhn checksum over a string of digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** ISO 13616 IBAN check: length 15..34 and mod-97 of the rearranged number equals 1. */
export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/[\s-]/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const value = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + (digit.charCodeAt(0) - 48)) % 97;
  }
  return remainder === 1;
}

interface Detector {
  kind: RedactionKind;
  pattern: RegExp;
  /** Optional check on the matched text; a match that fails it is left alone. */
  accept?: (match: string) => boolean;
}

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;

/** Order matters: earlier detectors run first, and their markers contain no digits for later ones to match. */
const DETECTORS: Detector[] = [
  { kind: 'email', pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g },
  {
    kind: 'iban',
    // Country code, check digits, then groups of four (optionally space separated) and a short tail.
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/g,
    accept: ibanValid,
  },
  {
    kind: 'card',
    // 13 to 19 digits, optionally grouped by spaces or dashes, not part of a longer number.
    pattern: /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d])/g,
    accept: (m) => {
      const digits = m.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits);
    },
  },
  {
    kind: 'ssn',
    pattern: /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/g,
  },
  {
    kind: 'ipv6',
    pattern: new RegExp(`(?<![\\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:${IPV4}|[0-9A-Fa-f]{0,4})(?![\\w:])`, 'g'),
    accept: (m) => /[0-9A-Fa-f]/.test(m) && isIPv6(m),
  },
  { kind: 'ipv4', pattern: new RegExp(`(?<![\\d.])${IPV4}(?!\\.?\\d)`, 'g') },
  {
    kind: 'phone',
    // International (+CC ...) or North-American style with separators; bare digit runs are not phones.
    pattern:
      /(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\) ?\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4})(?![\w])/g,
    accept: (m) => {
      const digits = m.replace(/\D/g, '').length;
      return digits >= 8 && digits <= 15;
    },
  },
];

const zeroCounts = (): Record<RedactionKind, number> =>
  Object.fromEntries(REDACTION_KINDS.map((k) => [k, 0])) as Record<RedactionKind, number>;

/**
 * Replace e-mail addresses, phone numbers, payment card numbers (Luhn-checked), IBANs (mod-97 checked),
 * US SSNs and IPv4/IPv6 addresses with `[REDACTED:<kind>]`. Deterministic, no model involved.
 */
export function redact(text: string): RedactionResult {
  const counts = zeroCounts();
  let out = text;
  for (const d of DETECTORS) {
    out = out.replace(d.pattern, (match) => {
      if (d.accept && !d.accept(match)) return match;
      counts[d.kind] += 1;
      return redactionMarker(d.kind);
    });
  }
  return { text: out, counts };
}

/** Adds `b`'s counts into `a` (mutates and returns `a`). */
export function addRedactionCounts(a: Record<RedactionKind, number>, b: Record<RedactionKind, number>): Record<RedactionKind, number> {
  for (const k of REDACTION_KINDS) a[k] += b[k];
  return a;
}

export const totalRedactions = (counts: Record<RedactionKind, number>): number => REDACTION_KINDS.reduce((n, k) => n + counts[k], 0);

/** A redactor that remembers what it removed across many calls (per task), for stats and logs. */
export class Redactor {
  readonly counts = zeroCounts();
  text(value: string): string {
    const r = redact(value);
    addRedactionCounts(this.counts, r.counts);
    return r.text;
  }
  /** Redacts every string inside a JSON-like value; returns a copy. */
  deep<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.deep(v)) as T;
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, this.deep(v)])) as T;
    }
    return value;
  }
  get total(): number {
    return totalRedactions(this.counts);
  }
}
