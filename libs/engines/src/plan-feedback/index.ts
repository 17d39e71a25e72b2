export * from './read-feedback';
export * from './revise-by-terms';
