/**
 * /openapi.json and the reference page at /docs: Scalar's API reference (@scalar/api-reference,
 * its standalone browser bundle served from the installed package, no CDN) rendering the document.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { buildOpenApi, serversOf, type ServerEntry } from '../http/openapi.js';
import { defineRoute, file, json, ok, type RouteDef } from '../http/route.js';
import { open } from '../domain/contract.js';

const require = createRequire(import.meta.url);
/** The package's folder: its exports map names neither package.json nor the browser bundle, so go up from its main entry (dist/index.js). */
const SCALAR_DIR = dirname(dirname(require.resolve('@scalar/api-reference')));
const SCALAR_VERSION = (JSON.parse(readFileSync(join(SCALAR_DIR, 'package.json'), 'utf8')) as { version: string }).version;

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>B2B Commerce API reference</title>
</head>
<body>
<div id="app"></div>
<script src="/docs/assets/scalar.js?v=${SCALAR_VERSION}"></script>
<script src="/docs/assets/init.js?v=${SCALAR_VERSION}"></script>
</body>
</html>
`;

/** In its own file rather than inline, so a Content-Security-Policy without 'unsafe-inline' scripts allows the page. */
const INIT = `Scalar.createApiReference('#app', {
  url: '/openapi.json',
  withDefaultFonts: false,
  hideClientButton: false,
  defaultOpenAllTags: false,
  metaData: { title: 'B2B Commerce API reference' },
});
`;

let bundle: Promise<Buffer> | undefined;
const scalarBundle = () => (bundle ??= readFile(join(SCALAR_DIR, 'dist/browser/standalone.js')));

const CACHE_ASSET = { 'Cache-Control': 'public, max-age=86400' };

export function docsRoutes(all: () => RouteDef[]): RouteDef[] {
  const doc = (servers: ServerEntry[]) => buildOpenApi(all(), { title: 'B2B Commerce API', version: '0.1.0', servers });
  return [
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'OpenAPI 3.1 document of this API',
      tag: 'Documentation',
      auth: 'public',
      responses: { 200: json(open(), 'The OpenAPI 3.1 document') },
      async handler({ deps }) {
        // Public and the same for every caller: cacheable, revalidated with its ETag.
        return { ...ok(doc(serversOf({ url: deps.config.publicBaseUrl, environment: deps.config.environment }, deps.config.environmentUrls))), headers: { 'Cache-Control': 'public, max-age=300' } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getReferencePage',
      summary: 'API reference page (Scalar) rendering /openapi.json',
      tag: 'Documentation',
      auth: 'public',
      responses: { 200: file('text/html', 'HTML page') },
      async handler() {
        return { status: 200, raw: { contentType: 'text/html; charset=utf-8', data: PAGE } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/scalar.js',
      operationId: 'getReferencePageScript',
      summary: 'The reference page viewer (Scalar standalone bundle, from the installed @scalar/api-reference package)',
      tag: 'Documentation',
      auth: 'public',
      responses: { 200: file('text/javascript', 'JavaScript') },
      async handler() {
        return { status: 200, headers: CACHE_ASSET, raw: { contentType: 'text/javascript; charset=utf-8', data: await scalarBundle() } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/init.js',
      operationId: 'getReferencePageConfig',
      summary: 'The reference page configuration (which document Scalar renders)',
      tag: 'Documentation',
      auth: 'public',
      responses: { 200: file('text/javascript', 'JavaScript') },
      async handler() {
        return { status: 200, headers: CACHE_ASSET, raw: { contentType: 'text/javascript; charset=utf-8', data: INIT } };
      },
    }),
  ];
}
