export * from './plan-ingest';
export * from './source-passages';
export * from './source-fingerprint';
export * from './keep-structure';
