import { detectionView } from './detection-view';
import { REDACTION_KINDS, REDACTION_RULES, type RedactionKind } from './redaction-rules';

export { REDACTION_KINDS, type RedactionKind } from './redaction-rules';

export interface RedactionResult {
  text: string;
  /** How many values of each kind were replaced. Never the values themselves. */
  counts: Record<RedactionKind, number>;
}

/** One value the rules found: its kind and where it lies in the original text. */
export interface RedactionSpan {
  kind: RedactionKind;
  start: number;
  end: number;
}

export const redactionMarker = (kind: RedactionKind): string => `[REDACTED:${kind}]`;

/** Stands in for a value already taken, same length so view offsets hold; no rule matches it or counts it as a digit or word. */
const TAKEN = '\ufffc';

/** Every value the rules find in `text`, in text order, none overlapping. */
export function findRedactions(text: string): RedactionSpan[] {
  const view = detectionView(text);
  let read = view.text;
  const spans: RedactionSpan[] = [];
  for (const rule of REDACTION_RULES) {
    read = read.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      const length = rule.take ? rule.take(match) : !rule.accept || rule.accept(match) ? match.length : 0;
      if (length === 0) return match;
      // With capture groups the offset is the argument after them: the last number.
      const offset = rest.findLast((v) => typeof v === 'number') as number;
      const [start, end] = view.original(offset, offset + length);
      spans.push({ kind: rule.kind, start, end });
      return TAKEN.repeat(length) + match.slice(length);
    });
  }
  return spans.sort((a, b) => a.start - b.start);
}

const zeroCounts = (): Record<RedactionKind, number> =>
  Object.fromEntries(REDACTION_KINDS.map((k) => [k, 0])) as Record<RedactionKind, number>;

/**
 * Replaces e-mail addresses, IBANs (mod-97 checked), Chinese resident ids (MOD 11-2 checked), payment card numbers
 * (Luhn checked), IPv6 and IPv4 addresses, US SSNs and phone numbers with `[REDACTED:<kind>]`, reading the text
 * normalised (NFKC, Unicode spaces and dashes) but changing nothing else in it. Deterministic, no model involved;
 * the rules are REDACTION_RULES.
 */
export function redact(text: string): RedactionResult {
  const counts = zeroCounts();
  const spans = findRedactions(text);
  if (!spans.length) return { text, counts };
  let out = '';
  let at = 0;
  for (const span of spans) {
    out += text.slice(at, span.start) + redactionMarker(span.kind);
    at = span.end;
    counts[span.kind] += 1;
  }
  return { text: out + text.slice(at), counts };
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
