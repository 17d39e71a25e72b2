export * from './engine';
export * from './usage';
export * from './simulated';
export * from './anthropic';
export * from './hygiene';
export * from './corpus';
export * from './engine-config';
export * from './engine-factory';
