export * from './classify-request';
export * from './question-form';
export * from './report-shape';
export * from './answer-advice';
