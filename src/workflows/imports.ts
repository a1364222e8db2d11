/** Workflows of the `imports` task queue (this file is that queue's workflowsPath; add a workflow with one export line). */
export { importJob } from './import-job.js';
