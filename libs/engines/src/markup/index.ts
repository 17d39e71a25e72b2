export * from './document-passages';
export * from './section-title';
