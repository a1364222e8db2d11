/** Image test helpers: images generated with sharp, multipart uploads, ingestion polling. */
import sharp from 'sharp';
import { call, API, type OrgFixture, type Res } from './helpers';

/** A generated image of the given size and format (a gradient-ish fill so encoders do real work). */
export async function makeImage(width: number, height: number, format: 'png' | 'jpeg' | 'webp' | 'gif' = 'png'): Promise<Buffer> {
  const base = sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } });
  return base.toFormat(format).toBuffer();
}

export async function widthOf(data: Buffer): Promise<number> {
  const meta = await sharp(data).metadata();
  return meta.width ?? 0;
}

/** POSTs multipart form data (fields and at most one file) to the API. */
export async function postMultipart(
  path: string,
  opts: { token?: string; fields?: Record<string, string>; file?: { field?: string; name: string; data: Buffer; type: string }; base?: string },
): Promise<Res> {
  const form = new FormData();
  for (const [k, v] of Object.entries(opts.fields ?? {})) form.append(k, v);
  if (opts.file) form.append(opts.file.field ?? 'image', new Blob([opts.file.data], { type: opts.file.type }), opts.file.name);
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  const res = await fetch(`${opts.base ?? API}${path}`, { method: 'POST', headers, body: form });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers, text };
}

/** Uploads an image from-local and returns its id (from the Location header). */
export async function uploadImage(org: OrgFixture, opts: { name?: string; sku?: string; extract?: boolean; data?: Buffer; type?: string } = {}): Promise<string> {
  const data = opts.data ?? (await makeImage(800, 500));
  const fields: Record<string, string> = {};
  if (opts.sku !== undefined) fields.sku = opts.sku;
  if (opts.extract !== undefined) fields.extractSkuFromImageName = String(opts.extract);
  const res = await postMultipart('/api/images/from-local', {
    token: org.adminToken,
    base: org.base,
    fields,
    file: { name: opts.name ?? 'picture.png', data, type: opts.type ?? 'image/png' },
  });
  if (res.status !== 204) throw new Error(`upload failed: ${res.status} ${res.text}`);
  const location = res.headers.get('location') ?? '';
  return location.split('/').pop() ?? '';
}

/** Starts a remote ingestion and returns its job id. */
export async function startIngestion(org: OrgFixture, images: Record<string, unknown>[]): Promise<string> {
  const res = await call('POST', '/api/images/from-remote', { token: org.adminToken, base: org.base, body: { images } });
  if (res.status !== 204) throw new Error(`from-remote failed: ${res.status} ${res.text}`);
  return res.headers.get('x-ingestion-id') ?? '';
}

export async function waitForIngestion(org: OrgFixture, jobId: string, timeoutMs = 50000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await call('GET', `/api/images/ingestions/${jobId}`, { token: org.adminToken, base: org.base });
    if (res.status !== 200) throw new Error(`ingestion status failed: ${res.status} ${res.text}`);
    if (res.body.status === 'completed') return res.body;
    if (Date.now() > deadline) throw new Error(`ingestion ${jobId} not completed: ${res.text}`);
    await new Promise((r) => setTimeout(r, 400));
  }
}
