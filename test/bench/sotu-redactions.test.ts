import { loadSotuSpeeches } from '@orrery/passages/ingest';
import { redact } from '@orrery/claude-engine';
import { describe, expect, it } from 'vitest';
import { sotuRedactions } from '../../bench/redaction/sotu-redactions';

describe('redaction on the State of the Union speeches (no personal data in them)', () => {
  const speeches = loadSotuSpeeches();

  it('takes nothing from any speech: every redaction there would be a false positive', () => {
    expect(sotuRedactions(speeches)).toEqual([]);
  });

  it('keeps their years, dollar amounts and bill numbers, every one', () => {
    const kept = { years: [0, 0], amounts: [0, 0], bills: [0, 0] };
    const patterns = {
      years: /\b1[789]\d\d\b|\b20[0-2]\d\b/g,
      amounts: /\$\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)? dollars/g,
      bills: /\b(?:H\.\s?R\.|S\.|H\.\s?J\.\s?Res\.|Public Law|P\.L\.|No\.)\s?\d[\d-]*/g,
    };
    for (const s of speeches) {
      const redacted = redact(s.text).text;
      for (const [name, re] of Object.entries(patterns) as Array<[keyof typeof kept, RegExp]>) {
        kept[name][0] += s.text.match(re)?.length ?? 0;
        kept[name][1] += redacted.match(re)?.length ?? 0;
      }
    }
    for (const [before, after] of Object.values(kept)) {
      expect(before).toBeGreaterThan(0);
      expect(after).toBe(before);
    }
  });
});
