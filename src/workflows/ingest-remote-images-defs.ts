/** Input and result of the ingestRemoteImages workflow, shared by the workflow and the API (no activity proxies here). */

export interface IngestRemoteImagesInput {
  jobId: string;
  organizationId: string;
  itemIds: string[];
}

export interface IngestRemoteImagesResult {
  succeeded: number;
  failed: number;
}
