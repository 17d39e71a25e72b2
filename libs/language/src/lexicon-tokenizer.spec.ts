import { describe, expect, it } from 'vitest';
import winkNLP, { type ItsHelpers } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { lexiconTokens, lexiconValues } from './lexicon-tokenizer';
import { analyzeTerms } from './text-analysis';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const its = require('wink-nlp/src/its.js') as ItsHelpers;

/** Contractions, hyphens, abbreviations, URLs, emails, numbers, spellings the model maps, words it does not know. */
const TEXTS = [
  "The U.S. government can't state-of-the-art e.g. http://foo.com/x user@x.org 3.5% #tag @bob I'm Hilary's café co-operate 1990s",
  'Misc changes: Initialise the behaviour of the colour picker; see README.md and v1.2.3 (2021-03-04).',
  'Examples:\n\n— --timeout 1h is 1 hour\n\n— --ti',
  "rsync -avz --exclude='*.o' src/ host:/dst/ won't copy them; they'd be skipped, wouldn't they?",
  'Kubernetes’ kubectl — “quoted” text, 10:30 am, 1st, $5, £3, x86_64, foo_bar(), a.b.c, Mr. Smith.',
];

describe('lexiconTokens', () => {
  it('reads every text exactly as a fresh wink-nlp pipeline does', () => {
    for (const text of TEXTS) {
      const tokens = winkNLP(model, []).readDoc(text).tokens();
      const normals = tokens.out(its.normal) as string[];
      const types = tokens.out(its.type) as string[];
      const stops = tokens.out(its.stopWordFlag) as boolean[];
      expect(lexiconTokens(text)).toEqual(normals.map((normal, i) => ({ normal, type: types[i], stop: stops[i] })));
      expect(lexiconValues(text)).toEqual(tokens.out(its.value));
    }
  }, 60_000);

  it("gives a text the same terms whatever was read before (a pipeline's lexicon keeps every new word and splits later texts by it)", () => {
    const text = TEXTS[2]!;
    const before = analyzeTerms(text);
    // A pipeline that has read this adds "1h" to its lexicon, and from then on no longer splits "1h" into "1" and "h".
    analyzeTerms('For example, release 1.0.1h can be found in openssl-1.0.1h.tar.gz');
    expect(analyzeTerms(text)).toEqual(before);
  });
});
