import { quoteOccursIn, type Report, type WatchChanges } from '@orrery/protocol';

/** A source as the comparison needs it: whether it still exists, and its text now. */
export type SourceNow = (sourceId: string) => Promise<{ text: string } | undefined | 'unknown'>;

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();
const citationsOf = (r: Report) => [...(r.summaryCitations ?? []), ...r.sections.flatMap((s) => s.paragraphs.flatMap((p) => p.citations))];

/**
 * What changed between a watch's last answer and this one: sources cited now and not then; findings cited then whose
 * source is gone or no longer says what was quoted (`sourceNow` answers 'unknown' where it cannot tell, e.g. a web page
 * this run did not read again); and whether the answer's summary reads differently.
 */
export async function watchChanges(last: Report, now: Report, sourceNow: SourceNow): Promise<WatchChanges> {
  const before = new Set(last.sources.map((s) => s.id));
  const newSources = now.sources.filter((s) => !before.has(s.id)).map((s) => ({ id: s.id, title: s.title }));
  const unsupported: WatchChanges['unsupported'] = [];
  const seen = new Set<string>();
  for (const c of citationsOf(last)) {
    if (!c.quote) continue;
    const key = `${c.sourceId}\u0000${c.quote}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const source = await sourceNow(c.sourceId);
    if (source === 'unknown') continue;
    if (!source || !quoteOccursIn(c.quote, source.text)) unsupported.push({ sourceId: c.sourceId, quote: c.quote });
  }
  const answerChanged = norm(last.summary) !== norm(now.summary);
  const lines = [
    ...(newSources.length ? [`New sources: ${newSources.map((s) => `${s.title} (${s.id})`).join('; ')}.`] : []),
    ...(unsupported.length ? [`No longer supported: ${unsupported.map((u) => `"${u.quote}" (${u.sourceId})`).join('; ')}.`] : []),
    ...(answerChanged ? [`The answer changed. Now: ${now.summary}`] : []),
  ];
  return { newSources, unsupported, answerChanged, summary: lines.join('\n') };
}

export const changedAnything = (c: WatchChanges): boolean => c.newSources.length > 0 || c.unsupported.length > 0 || c.answerChanged;
