export * from './resolve-budget';
export * from './tokens-of';
export * from './budget-account';
export * from './reserve';
export * from './settle';
export * from './start-round';
export * from './remaining';
export * from './extra-budget';
