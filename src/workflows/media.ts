/** Workflows of the `media` task queue (this file is that queue's workflowsPath). */
export { ingestRemoteImages } from './ingest-remote-images.js';
