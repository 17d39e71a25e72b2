import { hash } from 'node:crypto';

/** 96 bits of a string's SHA-1 (95 free: one is set to mark a slot used): two ids of a million-passage corpus share them with odds near 2^-55. */
const LANES = 3;

function fingerprintInto(s: string, out: Uint32Array, at: number): void {
  const d = hash('sha1', s, 'buffer');
  // Lane 0 is never 0: an all-zero key marks an empty slot.
  out[at] = d.readUInt32LE(0) | 1;
  out[at + 1] = d.readUInt32LE(4);
  out[at + 2] = d.readUInt32LE(8);
}

/**
 * Strings (passage ids), each with an optional string value (a content hash), held as fixed-width fingerprints in one
 * typed array: 12 or 24 bytes a slot, at most half full, where Maps and Sets of the strings take hundreds (planning a
 * re-ingest of a million passages: 100.6 MB instead of 554.1, `npm run bench:plan-memory`), so a large corpus's plan
 * fits a small worker. Open addressing, linear probing, doubled at half full.
 */
export class FingerprintTable {
  private slots: Uint32Array;
  private mask: number;
  private count = 0;
  private readonly width: number;
  private readonly scratch = new Uint32Array(2 * LANES);

  constructor(private readonly withValues: boolean) {
    this.width = withValues ? 2 * LANES : LANES;
    this.mask = 1023;
    this.slots = new Uint32Array((this.mask + 1) * this.width);
  }

  get size(): number {
    return this.count;
  }

  /** Adds a key (and its value); false when the key was there already (its value is left as it was). */
  add(key: string, value?: string): boolean {
    fingerprintInto(key, this.scratch, 0);
    if (this.withValues) fingerprintInto(value ?? '', this.scratch, LANES);
    if (this.find(this.scratch) >= 0) return false;
    if ((this.count + 1) * 2 > this.mask + 1) this.grow();
    this.place(this.scratch);
    this.count++;
    return true;
  }

  has(key: string): boolean {
    fingerprintInto(key, this.scratch, 0);
    return this.find(this.scratch) >= 0;
  }

  /** Whether the key is held with this value; undefined when the key is not held. */
  sameValue(key: string, value: string): boolean | undefined {
    fingerprintInto(key, this.scratch, 0);
    const at = this.find(this.scratch);
    if (at < 0) return undefined;
    if (!this.withValues) return false;
    fingerprintInto(value, this.scratch, LANES);
    const s = this.slots;
    return s[at + LANES] === this.scratch[LANES] && s[at + LANES + 1] === this.scratch[LANES + 1] && s[at + LANES + 2] === this.scratch[LANES + 2];
  }

  /** The slot offset holding the key in `entry`, or -1. */
  private find(entry: Uint32Array): number {
    const s = this.slots;
    for (let i = entry[0]! & this.mask; ; i = (i + 1) & this.mask) {
      const at = i * this.width;
      if (s[at] === 0) return -1;
      if (s[at] === entry[0] && s[at + 1] === entry[1] && s[at + 2] === entry[2]) return at;
    }
  }

  private place(entry: Uint32Array): void {
    const s = this.slots;
    let i = entry[0]! & this.mask;
    while (s[i * this.width] !== 0) i = (i + 1) & this.mask;
    s.set(entry.subarray(0, this.width), i * this.width);
  }

  private grow(): void {
    const old = this.slots;
    this.mask = this.mask * 2 + 1;
    this.slots = new Uint32Array((this.mask + 1) * this.width);
    for (let at = 0; at < old.length; at += this.width) if (old[at] !== 0) this.place(old.subarray(at, at + this.width));
  }
}
