/**
 * Prints, as JSON, the yup schema of every route's body and query as the server validates them
 * (from the built routes in dist/, so the test compares the document with the very schemas the
 * server runs). Regular expressions are given by their source; a field documented by another
 * schema (`meta.documentAs`) is given as that schema, as src/http/openapi.ts documents it.
 * Usage: node scripts/dev/route-schemas.mjs <distDir> (test/openapi.test.ts)
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = path.resolve(process.argv[2] ?? 'dist');
const { allRoutes } = await import(pathToFileURL(path.join(dist, 'src/api/index.js')).href);

function norm(d) {
  if (!d || typeof d !== 'object') return d;
  if (d.meta?.documentAs) return norm(d.meta.documentAs.describe());
  const out = { type: d.type, nullable: !!d.nullable, optional: !!d.optional };
  out.tests = (d.tests ?? []).map((t) => ({
    name: t.name,
    params: t.params ? Object.fromEntries(Object.entries(t.params).map(([k, v]) => [k, v instanceof RegExp ? { regex: v.source } : v])) : undefined,
  }));
  if (d.oneOf?.length) out.oneOf = d.oneOf;
  if (d.meta?.openapi) out.openapi = d.meta.openapi;
  if (d.fields) out.fields = Object.fromEntries(Object.entries(d.fields).map(([k, f]) => [k, norm(f)]));
  if (d.innerType) out.innerType = norm(d.innerType);
  return out;
}

const routes = allRoutes.map((r) => ({
  method: r.method,
  path: r.path.replace(/:(\w+)/g, '{$1}'),
  ...(r.body ? { body: norm(r.body.describe()) } : {}),
  ...(r.query ? { query: norm(r.query.describe()) } : {}),
}));
process.stdout.write(JSON.stringify(routes));
process.exit(0);
