/** /openapi.json and a readable /docs page rendered from it. */
import { buildOpenApi } from '../http/openapi.js';
import { defineRoute, ok, type RouteDef } from '../http/route.js';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function renderDocs(doc: Record<string, unknown>): string {
  const paths = doc.paths as Record<string, Record<string, { summary: string; tags: string[]; 'x-roles': string[]; responses: Record<string, { description: string }>; requestBody?: unknown; parameters: { name: string; in: string; required: boolean }[] }>>;
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const roles = op['x-roles'].length ? op['x-roles'].join(', ') : 'public';
      const params = op.parameters.map((p) => `<code>${esc(p.name)}</code> (${p.in}${p.required ? ', required' : ''})`).join(', ');
      const body = op.requestBody ? `<details><summary>Request body schema</summary><pre>${esc(JSON.stringify(op.requestBody, null, 2))}</pre></details>` : '';
      const responses = Object.entries(op.responses).map(([s, r]) => `<li><b>${s}</b> ${esc(r.description)}</li>`).join('');
      const html = `<section><h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3><p>${esc(op.summary)}</p><p>Auth: ${esc(roles)}${params ? ` · Parameters: ${params}` : ''}</p>${body}<ul>${responses}</ul></section>`;
      const tag = op.tags[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const nav = [...byTag.keys()].map((t) => `<a href="#${esc(t)}">${esc(t)}</a>`).join(' · ');
  const body = [...byTag.entries()].map(([t, items]) => `<h2 id="${esc(t)}">${esc(t)}</h2>${items.join('')}`).join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>B2B Commerce API</title><style>
body{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#222}section{border-top:1px solid #ddd;padding:.5rem 0}
.m{display:inline-block;min-width:4.5em;padding:2px 6px;border-radius:4px;color:#fff;font-size:.8em;text-align:center}.get{background:#2a7}.post{background:#27c}.put{background:#c82}.patch{background:#a5c}.delete{background:#c33}
pre{background:#f6f6f6;padding:.5rem;overflow:auto}</style></head><body><h1>B2B Commerce API</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Errors are <code>application/problem+json</code> with <code>type</code>, <code>title</code>, <code>status</code>, <code>errors</code>, <code>detail</code>, <code>traceId</code>.</p><nav>${nav}</nav>${body}</body></html>`;
}

export function docsRoutes(all: () => RouteDef[]): RouteDef[] {
  const doc = (servers: string[]) => buildOpenApi(all(), { title: 'B2B Commerce API', version: '0.1.0', servers });
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      summary: 'OpenAPI 3.1 document of this API',
      tag: 'Documentation',
      auth: 'public',
      responses: { 200: 'OpenAPI document' },
      async handler({ deps }) {
        return ok(doc([deps.config.publicBaseUrl]));
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      summary: 'Readable API documentation',
      tag: 'Documentation',
      auth: 'public',
      responses: { 200: 'HTML page' },
      async handler({ deps }) {
        return { status: 200, raw: { contentType: 'text/html; charset=utf-8', data: renderDocs(doc([deps.config.publicBaseUrl])) } };
      },
    }),
  ];
}
