/** Liveness and readiness probes; routes like any other so that they are documented in /openapi.json. */
import { defineRoute, json, ok } from '../http/route.js';
import * as out from '../domain/contract.js';
import { checkReadiness } from '../services/ops/readiness.js';

const CHECK = out.obj({ Ok: out.bool(), Ms: out.int(), Error: out.opt(out.str()) });
const READINESS = out.component('Readiness', out.obj({ Ready: out.bool(), Service: out.str(), Checks: out.obj({ Database: CHECK, Migrations: CHECK, Temporal: CHECK, ObjectStorage: CHECK }) }));

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    summary: 'Liveness: answers while the API process serves requests (no dependency is checked)',
    tag: 'Operations',
    auth: 'public',
    responses: { 200: json(out.obj({ status: out.oneOf(['ok'] as const), service: out.str() }), 'The API process is up') },
    async handler({ deps }) {
      return ok({ status: 'ok', service: deps.config.serviceName });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/ready',
    operationId: 'getReadiness',
    summary: 'Readiness: PostgreSQL answers, every migration is applied, Temporal answers for the namespace, the object storage bucket exists; 503 naming the failed checks otherwise',
    tag: 'Operations',
    auth: 'public',
    responses: {
      200: json(READINESS, 'Ready'),
      503: json(READINESS, 'Not ready: Ready false; each failed check has Ok false and an Error (header Retry-After)'),
    },
    async handler({ deps }) {
      const r = await checkReadiness(deps);
      return r.Ready ? ok(r) : { status: 503, body: r, headers: { 'Retry-After': '5' } };
    },
  }),
];
