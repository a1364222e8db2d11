/** Every workflow of every task queue (the replay test bundles this file; workers bundle one queue file each). */
export * from './commerce.js';
export * from './media.js';
export * from './imports.js';
