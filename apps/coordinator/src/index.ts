export * from './bootstrap';
export * from './report/report-markdown';
