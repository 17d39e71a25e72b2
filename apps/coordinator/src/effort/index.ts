export * from './classify-request';
export * from './effort-for';
