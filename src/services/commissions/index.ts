export * from './plans.js';
export * from './generate.js';
export * from './statements.js';
export * from './pdf.js';
