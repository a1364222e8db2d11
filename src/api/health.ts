/** Liveness probe; a route like any other so that it is documented in /openapi.json. */
import { defineRoute, ok } from '../http/route.js';

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/health',
    summary: 'Liveness: answers while the API process serves requests',
    tag: 'Operations',
    auth: 'public',
    responses: { 200: '{ status: "ok", service }' },
    async handler({ deps }) {
      return ok({ status: 'ok', service: deps.config.serviceName });
    },
  }),
];
