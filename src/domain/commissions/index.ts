export * from './engine.js';
export * from './compiled.js';
export * from './patterns.js';
export * from './statement.js';
export * from './clawbacks.js';
export * from './plan-rules.js';
