export * from './redact';
export * from './redaction-rules';
export * from './checksums';
export * from './redaction-decision';
export * from './clip-text';
