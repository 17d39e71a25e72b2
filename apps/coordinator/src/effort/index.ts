export * from './effort-for';
