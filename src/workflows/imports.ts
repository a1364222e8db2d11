/**
 * Workflows of the `imports` task queue (this file is that queue's workflowsPath). Empty for now:
 * the worker starts no `imports` worker while this exports nothing and the queue has no
 * activities; adding `export { importJob } from './import-job.js';` is all it takes.
 */
export {};
