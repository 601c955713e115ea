export * from './call.js';
export * from './config.js';
export * from './errors.js';
export * from './guidance.js';
export * from './messages.js';
export * from './prompt.js';
export * from './report.js';
export type * from './types.js';
export * from './unreadable-report.js';
