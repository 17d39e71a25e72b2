import { type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { PassageStore } from './passage-store';

export type StoreSystem = 'sqlite' | 'postgresql';

/** The table both stores keep passages in (the semantic conventions' `db.collection.name`). */
const COLLECTION = 'passages';

/**
 * A store whose reads a task makes (search, get) are client spans of the run's trace, named and described by the
 * OpenTelemetry database conventions (https://opentelemetry.io/docs/specs/semconv/database/database-spans/):
 * `{db.operation.name} {db.collection.name}`, `db.system.name`, and how many rows came back. Every other method is the
 * store's own. Spans are no-ops while tracing is off.
 */
export function tracedPassageStore(store: PassageStore, system: StoreSystem): PassageStore {
  const search: PassageStore['search'] = (corpus, query, options) =>
    inStoreSpan(system, 'search', corpus, async (span) => {
      const hits = await store.search(corpus, query, options);
      span.setAttribute('db.response.returned_rows', hits.length);
      return hits;
    });
  const get: PassageStore['get'] = (corpus, ids) =>
    inStoreSpan(system, 'get', corpus, async (span) => {
      const passages = await store.get(corpus, ids);
      span.setAttribute('db.response.returned_rows', passages.length);
      return passages;
    });
  return new Proxy(store, {
    get: (target, prop) => {
      if (prop === 'search') return search;
      if (prop === 'get') return get;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function inStoreSpan<T>(system: StoreSystem, operation: string, corpus: string, fn: (span: Span) => Promise<T>): Promise<T> {
  const attributes = { 'db.system.name': system, 'db.operation.name': operation, 'db.collection.name': COLLECTION, 'orrery.corpus': corpus };
  return trace.getTracer('orrery').startActiveSpan(`${operation} ${COLLECTION}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      span.setAttribute('error.type', (err as Error).name);
      throw err;
    } finally {
      span.end();
    }
  });
}
