export * from './engine';
export * from './hygiene';
export * from './corpus';
