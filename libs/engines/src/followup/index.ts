export * from './inherited-bearing';
