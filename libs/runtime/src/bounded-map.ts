/** A Map that keeps at most `limit` entries: setting past it drops the oldest (insertion order). */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    for (const oldest of this.keys()) {
      if (this.size <= this.limit) break;
      this.delete(oldest);
    }
    return this;
  }
}
