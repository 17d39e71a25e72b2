export * from './plan-ingest';
export * from './source-passages';
