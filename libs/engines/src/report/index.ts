export * from './report-sentences';
