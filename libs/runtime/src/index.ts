export * from './active-jobs';
export * from './bounded-map';
export * from './free-port';
export * from './redis-policy';
export * from './redis-probe';
