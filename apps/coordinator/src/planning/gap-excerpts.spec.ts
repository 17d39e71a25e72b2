import type { Finding, Subtopic } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { GAP_EXCERPTS, gapExcerpts } from './gap-excerpts';

const topic = 'EU battery rules';
const finding = (id: string, subtopicId: string, claim: string, quote: string, sourceId = `web-${id}`): Finding => ({ id, subtopicId, claim, quote, sourceId });
const gap: Subtopic = { id: 'gap-1', title: 'EU battery rules — recycling targets', query: 'battery recycling targets', facetTerms: ['recycling targets'], excludeTerms: [], origin: 'refinement' };

describe('gapExcerpts', () => {
  it('forwards the findings a gap subtopic builds on, by its own terms beyond the topic, each with its quote', () => {
    const findings = [
      finding('f1', 'labels', 'EU battery rules require carbon labels from 2025.', 'carbon footprint declaration from 2025'),
      finding('f2', 'recovery', 'Recyclers must recover 90% of cobalt by 2027.', 'recycling targets of 90% for cobalt by 2027'),
      finding('f3', 'recovery', 'Lithium recovery targets rise to 80% in 2031.', 'recovery targets for lithium of 80% by 2031'),
    ];
    const out = gapExcerpts(gap, topic, findings);
    // Every finding shares the topic's words; only the ones on recycling targets are its evidence.
    expect(out.map((e) => e.sourceId)).toEqual(['web-f2', 'web-f3']);
    expect(out[0]!.text).toBe('Recyclers must recover 90% of cobalt by 2027.\nQuote: "recycling targets of 90% for cobalt by 2027"');
  });

  it("a thin subtopic researched again gets its own findings first; bounded and deduplicated", () => {
    const own = Array.from({ length: 12 }, (_, i) => finding(`o${i}`, 'gap-1', `Claim ${i} about something else.`, `quote ${i}`));
    const out = gapExcerpts(gap, topic, [...own, own[0]!]);
    expect(out).toHaveLength(GAP_EXCERPTS);
    expect(out[0]!.sourceId).toBe('web-o0');
    expect(new Set(out.map((e) => e.sourceId)).size).toBe(GAP_EXCERPTS);
  });

  it('nothing to build on: no excerpts', () => {
    expect(gapExcerpts(gap, topic, [])).toEqual([]);
    expect(gapExcerpts(gap, topic, [finding('f1', 'x', 'Unrelated harbour dredging.', 'dredging')])).toEqual([]);
  });
});

describe('gapExcerpts, a gap no finding speaks to', () => {
  it('still gets what the run knows of its topic, so it looks elsewhere', () => {
    const angle: Subtopic = { ...gap, title: 'EU battery rules — follow-up 1', query: 'battery follow-up 1', facetTerms: ['follow-up 1'] };
    const out = gapExcerpts(angle, topic, [finding('f1', 'labels', 'EU battery rules require carbon labels.', 'carbon labels')]);
    expect(out.map((e) => e.sourceId)).toEqual(['web-f1']);
  });
});
