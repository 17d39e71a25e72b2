import { describe, expect, it } from 'vitest';
import { collapseNearDuplicates } from './near-duplicates';
import { analyzeTerms } from './text-analysis';

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
});
