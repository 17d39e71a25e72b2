import { findRedactions, type RedactionKind } from '@orrery/claude-engine';
import { loadSotuSpeeches, type SotuSpeech } from '@orrery/passages/ingest';

/** One value the redaction rules took from a speech, with the words around it so a reader can judge it. */
export interface SpeechRedaction {
  year: number;
  president: string;
  kind: RedactionKind;
  value: string;
  context: string;
}

const CONTEXT = 40;

/** What redaction takes from the bundled State of the Union speeches: each one is a false positive, as they hold no personal data. */
export function sotuRedactions(speeches: SotuSpeech[] = loadSotuSpeeches()): SpeechRedaction[] {
  const found: SpeechRedaction[] = [];
  for (const s of speeches) {
    for (const span of findRedactions(s.text)) {
      const context = s.text.slice(Math.max(0, span.start - CONTEXT), span.end + CONTEXT).replace(/\s+/g, ' ');
      found.push({ year: s.year, president: s.name, kind: span.kind, value: s.text.slice(span.start, span.end), context });
    }
  }
  return found;
}
