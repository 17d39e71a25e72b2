export * from './redact';
export * from './redaction-decision';
export * from './clip-text';
