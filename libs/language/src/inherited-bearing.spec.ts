import type { Finding } from '@orrery/protocol';
import { describe, expect, it } from 'vitest';
import { inheritedBearing } from './inherited-bearing';

const f = (id: string, text: string): Finding => ({ id, claim: text, quote: text, sourceId: id, subtopicId: 'parent' });
const findings = [
  f('dams-1', 'The Harlow Dam on the Kestrel River was completed in 1958.'),
  f('dams-2', 'A fish ladder beside the Harlow Dam lets some salmon climb past the Kestrel River barrier.'),
  f('fish-1', 'Salmon runs on the Kestrel River collapsed after the 1990s.'),
  f('floods-1', 'The great flood of 1972 on the Kestrel River destroyed four bridges.'),
  f('floods-2', 'Levees along the Kestrel River protect farmland from floods.'),
];

describe('inheritedBearing', () => {
  it('a narrower question: the findings that share its telling words, rarest matches first; words every finding has say nothing', () => {
    const b = inheritedBearing([{ id: 'q', query: 'How did the Harlow Dam change the Kestrel River salmon?' }], findings);
    expect(b['q']).toEqual(['dams-2', 'dams-1', 'fish-1']);
  });

  it('the parent’s own topic: every finding that has all of its known words', () => {
    expect(inheritedBearing([{ id: 'q', query: 'Tell me more about the Kestrel River' }], findings)['q']).toHaveLength(findings.length);
  });

  it('words no inherited finding uses bear on nothing', () => {
    expect(inheritedBearing([{ id: 'q', query: 'concrete arches glacial lakes' }], findings)['q']).toEqual([]);
  });
});
