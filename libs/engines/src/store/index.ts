export * from './passage-store';
export * from './store-config';
export * from './open-passage-store';
export * from './sqlite-passage-store';
export * from './postgres-passage-store';
export * from './threaded-passage-store';
export * from './store-unavailable';
