import { counted } from '@orrery/engine';
import type { CorpusVocabulary } from '@orrery/passages';
import { titleParts } from '../index/documents';
import { ERA_YEARS } from '../index/eras';

/**
 * Every number a report states, computed from the sources it cites and nothing else: passages are distinct
 * sources (a passage quoted twice is one passage), documents are distinct titles, authors distinct names.
 */
export interface CitedFigures {
  passages: number;
  /** Distinct titles, a "file > heading" title by its file (a source titled by its own id, or untitled, names no document). */
  documents: number;
  authors: number;
  /** Earliest and latest year, with who spoke then (dated sources only). */
  from: { year: number; author: string | null } | null;
  to: { year: number; author: string | null } | null;
  /** The period of ERA_YEARS years with the most cited passages, and how many. */
  densest: { from: number; to: number; passages: number; periods: number } | null;
  /** The author of the most cited passages, and how many. */
  mostQuoted: { author: string; passages: number } | null;
}

/** The figures of a set of cited sources, by id, from their titles. */
export function citedFigures(sourceIds: Iterable<string>, titleOf: (id: string) => string | undefined): CitedFigures {
  const ids = [...new Set(sourceIds)];
  const meta = ids.map((id) => ({ id, title: titleOf(id), ...titleParts(titleOf(id)) }));
  const dated = meta.filter((m) => m.year !== null).sort((a, b) => a.year! - b.year! || a.id.localeCompare(b.id));
  const eras = new Map<number, number>();
  for (const m of dated) eras.set(Math.floor(m.year! / ERA_YEARS), (eras.get(Math.floor(m.year! / ERA_YEARS)) ?? 0) + 1);
  const top = [...eras.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
  const byAuthor = new Map<string, number>();
  for (const m of meta) if (m.author) byAuthor.set(m.author, (byAuthor.get(m.author) ?? 0) + 1);
  const most = [...byAuthor.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  const first = dated[0];
  const last = dated[dated.length - 1];
  return {
    passages: ids.length,
    documents: new Set(meta.map((m) => m.title).filter((t): t is string => !!t && !ids.includes(t)).map((t) => t.split(/\s+>\s+/)[0]!)).size,
    authors: byAuthor.size,
    from: first ? { year: first.year!, author: first.author } : null,
    to: last ? { year: last.year!, author: last.author } : null,
    densest: top ? { from: top[0] * ERA_YEARS, to: top[0] * ERA_YEARS + ERA_YEARS - 1, passages: top[1], periods: eras.size } : null,
    mostQuoted: most ? { author: most[0], passages: most[1] } : null,
  };
}

/** "12 passages from 9 State of the Union addresses by 7 presidents, 1862–2020": the whole report's count. */
export function countSentence(f: CitedFigures, v: CorpusVocabulary): string {
  if (f.passages === 0) return '';
  const docs = f.documents > 0 ? ` from ${counted(f.documents, v.document, v.documents)}` : '';
  // One author is named: "by Abraham Lincoln", not "by 1 president".
  const by = f.authors === 1 && f.mostQuoted ? ` by ${f.mostQuoted.author}` : f.authors ? ` by ${counted(f.authors, v.author, v.authors)}` : '';
  const span = f.from && f.to ? (f.from.year === f.to.year ? `, ${f.from.year}` : `, ${f.from.year}–${f.to.year}`) : '';
  return `The report cites ${counted(f.passages, 'passage')}${docs}${by}${span}.`;
}

/** "The evidence is densest in 1940–1959 (9 of 25 passages), and Harry S. Truman is quoted most (9 passages)." */
export function concentrationSentence(f: CitedFigures, denseShare: number): string {
  if (!f.densest || f.densest.periods < 2 || f.densest.passages < denseShare * f.passages) return '';
  const who = f.mostQuoted && f.mostQuoted.passages >= 2 && f.authors > 1 ? `, and ${f.mostQuoted.author} is quoted most (${counted(f.mostQuoted.passages, 'passage')})` : '';
  return `The evidence is densest in ${f.densest.from}–${f.densest.to} (${f.densest.passages} of ${f.passages} passages)${who}.`;
}

/** "6 passages from 4 of Abraham Lincoln’s addresses (1861–1864)": one side of a comparison. */
export function sideCountPhrase(name: string, f: CitedFigures, v: CorpusVocabulary, authored: boolean): string {
  const span = f.from && f.to ? (f.from.year === f.to.year ? ` (${f.from.year})` : ` (${f.from.year}–${f.to.year})`) : '';
  if (authored) return `${counted(f.passages, 'passage')} from ${f.documents} of ${possessive(name)} ${f.documents === 1 ? v.document : v.documents}${span}`;
  return `${counted(f.passages, 'passage')} on ${name} from ${counted(f.documents, v.document, v.documents)}`;
}

export const possessive = (name: string): string => (/s$/.test(name) ? `${name}’` : `${name}’s`);
