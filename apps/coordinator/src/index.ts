export * from './bootstrap';
export * from './report/report-markdown';
export * from './redis/run-keys';
export * from './auth/principal';
