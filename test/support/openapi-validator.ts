/**
 * Response validation against /openapi.json (issue 19 "the document is the contract").
 *
 * test/support/helpers.ts `call()` hands every answer of the API (production or sandbox) here: the
 * operation is found by method and path template, the status must be documented (an error
 * status may fall to `default`, which is problem+json), the media type must be the documented
 * one, and a JSON body must validate (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses) against the
 * operation's response schema. Any mismatch throws from `call()`, so the test that made the
 * request fails and names the operation, status and the schema errors.
 *
 * OPENAPI_RESPONSE_VALIDATION=off disables it (e.g. while bisecting another failure).
 */
import { appendFileSync } from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

interface CompiledOp {
  method: string;
  template: string;
  regex: RegExp;
  literalSegments: number;
  op: Json;
}

export interface Validator {
  check(method: string, path: string, status: number, contentType: string | null, body: unknown, text: string): string[];
}

export const validationEnabled = () => (process.env.OPENAPI_RESPONSE_VALIDATION ?? 'on') !== 'off';

export function createValidator(doc: Json): Validator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  const ops: CompiledOp[] = [];
  for (const [template, byMethod] of Object.entries(doc.paths as Record<string, Json>)) {
    const esc = (seg: string) => seg.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
    const regex = new RegExp(`^${template.split('/').map((seg) => (seg.startsWith('{') ? '[^/]+' : esc(seg))).join('/')}$`);
    for (const [method, op] of Object.entries(byMethod)) ops.push({ method: method.toUpperCase(), template, regex, literalSegments: template.split('/').filter((s) => s && !s.startsWith('{')).length, op });
  }
  const compiled = new Map<string, ValidateFunction>();
  const schemaFor = (key: string, schema: Json): ValidateFunction => {
    let v = compiled.get(key);
    if (!v) {
      // Local $refs (#/components/schemas/X) resolve against the document registered above.
      const rewritten = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/'));
      v = ajv.compile(rewritten);
      compiled.set(key, v);
    }
    return v;
  };

  return {
    check(method, rawPath, status, contentType, body, text) {
      const path = rawPath.split('?')[0];
      const m = method.toUpperCase();
      const candidates = ops.filter((o) => o.method === m && o.regex.test(path)).sort((a, b) => b.literalSegments - a.literalSegments);
      const hit = candidates[0];
      if (!hit) return []; // not a documented operation (an unknown route, OPTIONS, HEAD)
      const where = `${m} ${hit.template} -> ${status}`;
      const responses = hit.op.responses as Record<string, Json>;
      const resp = responses[String(status)] ?? (status >= 400 ? responses.default : undefined);
      // 304 Not Modified (a conditional GET, RFC 9110) must be documented like any status: the document declares it on every read that carries an ETag.
      if (!resp) return [`${where}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
      const content = resp.content as Record<string, { schema?: Json }> | undefined;
      const mime = (contentType ?? '').split(';')[0].trim().toLowerCase();
      if (!content) return text.length > 0 && status !== 304 ? [`${where}: documented without a body, but ${mime || 'a body'} was sent`] : [];
      if (text.length === 0 && m !== 'HEAD') return [`${where}: documented with ${Object.keys(content).join(', ')}, but the body is empty`];
      const entry = content[mime] ?? content['*/*'];
      if (!entry) return [`${where}: content type ${mime || '(none)'} is not documented (documented: ${Object.keys(content).join(', ')})`];
      if (!/json/.test(mime) || !entry.schema) return [];
      const validate = schemaFor(`${hit.method} ${hit.template} ${status in responses ? status : 'default'} ${mime}`, entry.schema);
      if (validate(body)) return [];
      return (validate.errors ?? []).slice(0, 10).map((e) => `${where}: body${e.instancePath} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
    },
  };
}

/** Appends mismatches to the run's log folder too, so a whole-suite run can be reviewed at once. */
export function recordMismatches(logDir: string | undefined, problems: string[]): void {
  if (!logDir || problems.length === 0) return;
  try {
    appendFileSync(`${logDir}/openapi-mismatches.log`, problems.map((p) => `${p}\n`).join(''));
  } catch {
    /* the log folder is optional */
  }
}
