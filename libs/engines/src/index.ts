export * from './engine';
export * from './hygiene';
