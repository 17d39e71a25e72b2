export * from './classify-request';
export * from './question-form';
