export * from './simulated-engine';
