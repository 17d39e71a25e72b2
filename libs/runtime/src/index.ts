export * from './active-jobs';
export * from './bounded-map';
export * from './free-port';
export * from './redis-policy';
export * from './redis-probe';
export * from './fleet-request-gate';
export * from './ingest-state';
export * from './start-ingest';
