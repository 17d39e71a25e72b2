import model from 'wink-eng-lite-web-model';

/** One token as index analysis reads it: its normal form, wink-nlp's token type and its stop-word flag. */
export interface LexiconToken {
  normal: string;
  type: string;
  stop: boolean;
}

/** The parts of wink-nlp's language cache this reads (`wink-nlp/src/cache.js`). */
interface WinkCache {
  lookup(text: string): number[] | null;
  value(index: number): string;
  normal(index: number): number;
  nox(binaryWord: number): number;
  mappedSpelling(index: number): number;
  property(index: number, name: string): unknown;
  intrinsicSize(): number;
}

/** What wink-nlp's tokenizer writes its tokens to (`wink-nlp/src/dd-wrapper.js`). */
interface TokenSink {
  _addToken(text: string, category: number): void;
  _addTokenIfInCache(text: string): number;
  isLexeme(text: string): number[] | null;
}

interface CoreModel {
  trex: unknown;
  tcat: { hash: Record<string, number>; list: string[] };
  preserve: unknown;
  features: { lexeme: { hash: Record<string, number> } };
}

// wink-nlp's own tokenizer and language cache, used directly: a pipeline's `readDoc` adds every token it has not met
// to the model's lexicon for good (a million passages' identifiers, numbers and misspellings: hundreds of MB that can
// never be freed), and what it adds changes how later texts are split ("1h" once seen stays one word).
/* eslint-disable @typescript-eslint/no-require-imports */
const createCache = require('wink-nlp/src/cache.js') as (core: CoreModel, featureFn: unknown) => WinkCache;
const compileTRex = require('wink-nlp/src/compile-trex.js') as (trex: unknown) => unknown;
const createTokenizer = require('wink-nlp/src/tokenizer.js') as (trex: unknown, categories: Record<string, number>, preserve: unknown) => (sink: TokenSink, text: string) => void;
/* eslint-enable @typescript-eslint/no-require-imports */

/** Where an expansion's normal lives in the token word that `cache.nox` reads (wink-nlp's `bits4PrecedingSpace`). */
const NOX_SHIFT = 16;

interface Lexicon {
  core: CoreModel;
  cache: WinkCache;
  tokenize: (sink: TokenSink, text: string) => void;
}

let lexicon: Lexicon | undefined;
/** The model is loaded on first use (about 0.2 s of CPU): a process that never analyses text never pays for it. */
function loaded(): Lexicon {
  if (!lexicon) {
    const typed = model as unknown as { core(): CoreModel; featureFn: unknown };
    const core = typed.core();
    lexicon = { core, cache: createCache(core, typed.featureFn), tokenize: createTokenizer(compileTRex(core.trex), core.tcat.hash, core.preserve) };
  }
  return lexicon;
}

/**
 * A text's tokens exactly as a fresh wink-nlp pipeline reads them (normal, type, stop word), from the model's own
 * lexicon only: nothing is added to it, so memory stays flat however much text is read, and a text's tokens never
 * depend on what was read before.
 */
export function lexiconTokens(text: string): LexiconToken[] {
  const { core, cache, tokenize } = loaded();
  const intrinsic = cache.intrinsicSize();
  const out: LexiconToken[] = [];
  const known = (index: number, normal: number): void => {
    out.push({ normal: cache.value(normal), type: cache.property(index, 'tokenType') as string, stop: cache.property(normal, 'isStopWord') === 1 });
  };
  const sink: TokenSink = {
    _addTokenIfInCache(t) {
      const found = cache.lookup(t);
      if (found === null) return 0;
      if (found.length === 1) known(found[0]!, cache.normal(found[0]!));
      // A contraction: its expansions, each with the normal the model gives it.
      else for (let k = 0; k < found.length; k += 4) known(found[k]!, cache.nox(found[k + 1]! << NOX_SHIFT));
      return 1;
    },
    _addToken(t, category) {
      const index = core.features.lexeme.hash[t];
      if (index !== undefined && index < intrinsic) return known(index, cache.normal(index));
      // Out of the vocabulary: the type the tokenizer found; the normal is the lowercase word, spelled as the model
      // maps it where the model knows it ("Initialise" -> "initialize"), and a stop word only then.
      const lower = core.features.lexeme.hash[t.toLowerCase()];
      if (lower !== undefined && lower < intrinsic) {
        const normal = cache.mappedSpelling(lower);
        out.push({ normal: cache.value(normal), type: core.tcat.list[category]!, stop: cache.property(normal, 'isStopWord') === 1 });
      } else out.push({ normal: t.toLowerCase(), type: core.tcat.list[category]!, stop: false });
    },
    isLexeme: (t) => cache.lookup(t),
  };
  tokenize(sink, text);
  return out;
}

/** A text's tokens as written (a contraction's expansions apart), as a fresh pipeline's `its.value` gives them. */
export function lexiconValues(text: string): string[] {
  const { cache, tokenize } = loaded();
  const out: string[] = [];
  tokenize(
    {
      _addTokenIfInCache(t) {
        const found = cache.lookup(t);
        if (found === null) return 0;
        for (let k = 0; k < found.length; k += found.length === 1 ? 1 : 4) out.push(cache.value(found[k]!));
        return 1;
      },
      _addToken: (t) => void out.push(t),
      isLexeme: (t) => cache.lookup(t),
    },
    text,
  );
  return out;
}

/** The model's Porter2 stemmer (what a pipeline's `its.stem` applies to a token's value). */
export const porterStem = (model as unknown as { addons: { stem(word: string): string } }).addons.stem;
