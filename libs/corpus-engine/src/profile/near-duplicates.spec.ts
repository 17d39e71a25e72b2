import { describe, expect, it } from 'vitest';
import { collapseNearDuplicates } from './near-duplicates';
import { analyzeTerms } from '@orrery/language';

const base =
  'To attach a TLS certificate to the load balancer, upload the certificate, validate the domain with a DNS record, and then attach it to the distribution in the console. ' +
  'Validation usually finishes within minutes; until it does, the certificate status stays pending and requests keep using the previous certificate. ' +
  'Renewal is automatic while the validation record remains in the hosted zone.';

describe('collapseNearDuplicates', () => {
  it('keeps the first of texts that differ in a word or two, and every distinct text', () => {
    const items = [
      { id: 'page-a', text: base },
      { id: 'page-b', text: base.replace('load balancer', 'instance') },
      { id: 'page-c', text: base.replace('console', 'command line') },
      { id: 'other', text: 'Retries use exponential backoff with jitter, doubling the delay after each failed request up to a ceiling.' },
      { id: 'page-a-again', text: base },
    ];
    expect(collapseNearDuplicates(items, (x) => analyzeTerms(x.text)).map((x) => x.id)).toEqual(['page-a', 'other']);
  });

  it('tells apart passages that share a topic but not their text', () => {
    const items = [
      { id: 'x', text: 'The kestrel hovers over fields hunting voles and mice at dawn.' },
      { id: 'y', text: 'Kestrel nests are found on cliffs, church towers and old buildings.' },
    ];
    expect(collapseNearDuplicates(items, (x) => analyzeTerms(x.text))).toHaveLength(2);
  });

  it('drops exactly the items an exact Jaccard check against every kept item would drop, at the threshold too', () => {
    // Term sets drawn from a small vocabulary, many pairs near 0.8 (sizes 4..60, shared cores), plus exact copies.
    let seed = 7;
    const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    const cores = Array.from({ length: 6 }, (_, c) => Array.from({ length: 50 }, (_, i) => `c${c}t${i}`));
    const items = Array.from({ length: 400 }, (_, i) => {
      const core = cores[i % cores.length]!.slice(0, 4 + Math.floor(next() * 56));
      const kept = core.filter(() => next() > 0.08);
      const extra = Array.from({ length: Math.floor(next() * 4) }, () => `x${Math.floor(next() * 30)}`);
      return { id: `p${i}`, terms: [...kept, ...extra] };
    });
    items.push(...items.slice(0, 20).map((x) => ({ ...x, id: `${x.id}-copy` })));
    const exact = (a: Set<string>, b: Set<string>) => {
      let both = 0;
      for (const t of a) if (b.has(t)) both++;
      return both / (a.size + b.size - both);
    };
    // The reference checks every kept item (pairwise); the bands only choose which pairs to check.
    const kept = collapseNearDuplicates(items, (x) => x.terms).map((x) => x.id);
    const reference: { id: string; set: Set<string> }[] = [];
    for (const x of items) {
      const set = new Set(x.terms);
      if (!reference.some((r) => exact(set, r.set) >= 0.8)) reference.push({ id: x.id, set });
    }
    expect(kept.length).toBeGreaterThan(20);
    expect(kept.length).toBeLessThan(items.length - 20);
    expect(kept).toEqual(reference.map((r) => r.id));
  });
});
