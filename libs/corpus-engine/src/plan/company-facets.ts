import { analyzeTerms, reportShape } from '@orrery/language';
import type { CorpusIndex } from '../index/corpus-index';
import { documentStructure } from '../index/documents';
import { subjectCompany } from '../index/subject-company';

/**
 * Which facets a plan may take for a question about how a subject was talked about over dated documents: those
 * holding one of the FACET_COMPANY_WORDS words the subject keeps company with most (`subjectCompany`). A speech's guest ("Elizabeth Alvarado") or a
 * turn of phrase ("right kind") shares passages with the subject without being one of its themes. Undefined
 * (every facet) for other questions and undated corpora.
 */
/** A survey's facets hold one of the subject's this many best company words. */
export const FACET_COMPANY_WORDS = 60;

export function companyFacets(index: CorpusIndex, topic: string): ((terms: readonly string[]) => boolean) | undefined {
  const shape = reportShape(topic);
  if ((shape.kind !== 'survey' && shape.kind !== 'change') || !documentStructure(index).dated) return undefined;
  const company = new Set(subjectCompany(index, [...new Set(analyzeTerms(shape.subject || topic))]).slice(0, FACET_COMPANY_WORDS).map((w) => w.stem));
  return company.size ? (terms) => terms.some((t) => company.has(t)) : undefined;
}
