export * from './tracing';
export * from './tracing-config';
