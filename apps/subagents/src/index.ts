export * from './bootstrap';
export * from './config/subagent-config';
