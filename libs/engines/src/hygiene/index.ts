export * from './redact';
export * from './redaction-decision';
