export * from './step-judge-types';
export * from './step-thresholds';
export * from './step-actions';
export * from './step-history';
export * from './step-rules';
export * from './judge-step';
export * from './step-judge-settings';
