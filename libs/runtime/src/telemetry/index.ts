export * from './tracing';
export * from './tracing-config';
export * from './log-context';
export * from './log-options';
export * from './json-logging';
