/** Helpers for the import job tests: submitting JSON or a file, and waiting for a job to finish. */
import { call, dbQuery, type OrgFixture, type Res } from './helpers';

export const FINISHED = ['Succeeded', 'SucceededWithErrors', 'Failed', 'Cancelled'];

export async function submitJson(org: OrgFixture, body: Record<string, unknown>, token = org.adminToken): Promise<Res> {
  return call('POST', '/api/imports', { base: org.base, token, body });
}

export async function submitFile(org: OrgFixture, fields: Record<string, string>, fileName: string, content: string): Promise<Res> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content], { type: 'text/csv' }), fileName);
  const res = await fetch(`${org.base}/api/imports`, { method: 'POST', headers: { authorization: `Bearer ${org.adminToken}` }, body: form });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers, text };
}

export async function getJob(org: OrgFixture, jobId: string): Promise<Record<string, any>> {
  const res = await call('GET', `/api/imports/${jobId}`, { base: org.base, token: org.adminToken });
  if (res.status !== 200) throw new Error(`read job failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Polls the job until `pred` holds (default: finished). */
export async function waitJob(org: OrgFixture, jobId: string, pred: (j: Record<string, any>) => boolean = (j) => FINISHED.includes(j.status), timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const j = await getJob(org, jobId);
    if (pred(j)) return j;
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not reach the expected state: ${JSON.stringify(j)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Submits and waits; fails when the submission is not accepted. */
export async function runJson(org: OrgFixture, body: Record<string, unknown>) {
  const res = await submitJson(org, body);
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${res.text}`);
  return waitJob(org, res.body.jobId);
}

export async function runFile(org: OrgFixture, fields: Record<string, string>, fileName: string, content: string) {
  const res = await submitFile(org, fields, fileName, content);
  if (res.status !== 202) throw new Error(`submit failed: ${res.status} ${res.text}`);
  return waitJob(org, res.body.jobId);
}

export async function errorsOf(org: OrgFixture, jobId: string): Promise<{ Data: { record: number; key: string | null; field: string; message: string }[]; TotalCount: number; PageNumber: number; PageSize: number }> {
  const res = await call('GET', `/api/imports/${jobId}/errors?pageSize=500`, { base: org.base, token: org.adminToken });
  if (res.status !== 200) throw new Error(`errors failed: ${res.status} ${res.text}`);
  return res.body;
}

export const counts = (j: Record<string, any>) => ({ status: j.status, totalRecords: j.totalRecords, processed: j.processed, created: j.created, updated: j.updated, unchanged: j.unchanged, failed: j.failed });

export async function productCount(org: OrgFixture, env: 'production' | 'sandbox' = 'production'): Promise<number> {
  const rows = await dbQuery<{ n: number }>('select count(*)::int as n from product where organization_id = $1', [org.organizationId], env);
  return rows[0].n;
}
