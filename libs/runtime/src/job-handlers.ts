/**
 * The handlers of one queue's job kinds, checked once, at startup: a kind with no handler, or with two, stops the
 * process before it takes a job (as immich's job registry does), rather than failing that job in production.
 */
export class JobHandlers<K extends string, H> {
  private readonly byKind = new Map<K, H>();

  constructor(queue: string, kinds: readonly K[], handlers: ReadonlyArray<readonly [kind: string, handler: H]>) {
    for (const [kind, handler] of handlers) {
      if (!kinds.includes(kind as K)) throw new Error(`queue ${queue}: a handler for "${kind}", which is no job kind of it (${kinds.join(', ')})`);
      if (this.byKind.has(kind as K)) throw new Error(`queue ${queue}: two handlers for job kind "${kind}"`);
      this.byKind.set(kind as K, handler);
    }
    const missing = kinds.filter((k) => !this.byKind.has(k));
    if (missing.length) throw new Error(`queue ${queue}: no handler for job kind${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  }

  for(kind: K): H {
    return this.byKind.get(kind)!;
  }
}
