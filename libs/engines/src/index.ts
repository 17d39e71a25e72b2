export * from './engine';
export * from './anthropic';
export * from './hygiene';
export * from './corpus';
