/**
 * A word-level Markov chain of order 2 trained on a pool of passages. The pool is kept as one stream of word ids
 * (0 between passages) plus, per word, the positions where it occurs sorted by the word before it: the words that
 * follow a context (a, b) are then one contiguous range, and drawing a position from it draws the next word with
 * the pool's own frequency, without any table of counts. Memory is about 12 bytes per pool word, whatever the
 * number of passages generated.
 */
export class MarkovModel {
  private constructor(
    /** Word of each id; id 0 is the boundary between passages. */
    private readonly words: readonly string[],
    /** The pool as word ids: 0, passage 1, 0, passage 2, …, 0. */
    private readonly stream: Int32Array,
    /** For word id w, its occurrences are `prev`/`at` entries [blockStart[w], blockStart[w + 1]). */
    private readonly blockStart: Int32Array,
    /** Within a word's block, the id of the word before each occurrence, ascending. */
    private readonly prev: Int32Array,
    /** The stream position of each occurrence, in the same order as `prev`. */
    private readonly at: Int32Array,
  ) {}

  /** The number of distinct words (as written, punctuation attached) the model can emit. */
  get vocabulary(): number {
    return this.words.length - 1;
  }

  static train(texts: Iterable<string>): MarkovModel {
    const ids = new Map<string, number>();
    const words: string[] = [''];
    const stream = new GrowableInt32();
    stream.push(0);
    for (const text of texts) {
      for (const w of text.split(/\s+/)) {
        if (!w) continue;
        let id = ids.get(w);
        if (id === undefined) {
          id = words.length;
          ids.set(w, id);
          words.push(w);
        }
        stream.push(id);
      }
      stream.push(0);
    }
    if (words.length === 1) throw new Error('the pool has no words to train on');
    return MarkovModel.index(words, stream.view());
  }

  private static index(words: string[], stream: Int32Array): MarkovModel {
    // Every position but the last has a successor; counting sort by word, then each block by the word before.
    const n = stream.length - 1;
    const blockStart = new Int32Array(words.length + 1);
    for (let p = 0; p < n; p++) blockStart[stream[p]! + 1]!++;
    for (let w = 0; w < words.length; w++) blockStart[w + 1]! += blockStart[w]!;
    const keys = new Float64Array(n);
    const fill = blockStart.slice(0, words.length);
    // prev * 2^26 + p: sorting the numbers sorts by prev, then position (positions < 2^26, ids < 2^27 fit in 53 bits).
    if (n >= 2 ** 26) throw new Error(`pool too large for the model: ${n} words (at most ${2 ** 26})`);
    for (let p = 0; p < n; p++) keys[fill[stream[p]!]!++] = (p === 0 ? 0 : stream[p - 1]!) * 2 ** 26 + p;
    const prev = new Int32Array(n);
    const at = new Int32Array(n);
    for (let w = 0; w < words.length; w++) {
      const block = keys.subarray(blockStart[w]!, blockStart[w + 1]!);
      block.sort();
      for (let i = 0; i < block.length; i++) {
        const k = block[i]!;
        prev[blockStart[w]! + i] = Math.floor(k / 2 ** 26);
        at[blockStart[w]! + i] = k % 2 ** 26;
      }
    }
    return new MarkovModel(words, stream, blockStart, prev, at);
  }

  /**
   * The id of a word following (a, b), drawn with the pool's frequency. At a passage start (b = 0) it is the first
   * word of a random pool passage; it backs off to b alone when (a, b) never occurs.
   */
  private next(a: number, b: number, rand: () => number): number {
    let from = this.blockStart[b]!;
    let to = this.blockStart[b + 1]!;
    if (b !== 0) {
      const first = lowerBound(this.prev, from, to, a);
      const end = lowerBound(this.prev, first, to, a + 1);
      if (end > first) [from, to] = [first, end];
    }
    return this.stream[this.at[from + Math.floor(rand() * (to - from))]! + 1]!;
  }

  /**
   * A passage of `length` words. Where the pool's passage would end, the chain starts again as a passage starts,
   * so the length follows the caller (drawn from the real lengths) and not the chain.
   */
  generate(length: number, rand: () => number): string {
    const out: string[] = [];
    let a = 0;
    let b = 0;
    while (out.length < length) {
      const w = this.next(a, b, rand);
      if (w === 0) {
        a = b = 0;
        continue;
      }
      out.push(this.words[w]!);
      a = b;
      b = w;
    }
    return out.join(' ');
  }
}

/** First index in [lo, hi) of the ascending `xs` whose value is ≥ x. */
function lowerBound(xs: Int32Array, lo: number, hi: number, x: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class GrowableInt32 {
  private buf = new Int32Array(1 << 16);
  private n = 0;
  push(x: number): void {
    if (this.n === this.buf.length) {
      const bigger = new Int32Array(this.buf.length * 2);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf[this.n++] = x;
  }
  view(): Int32Array {
    return this.buf.subarray(0, this.n);
  }
}
