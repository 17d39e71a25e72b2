export * from './verdict-types';
export * from './verdict-thresholds';
export * from '@orrery/language';
export * from './check-findings';
export * from './build-correction';
export * from './verdict-on-result';
export * from './filter-result';
export * from './verdict-on-report';
