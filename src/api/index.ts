/** Every route of the API; a new module adds its array here (and so joins OpenAPI and the security matrix). */
import type { RouteDef } from '../http/route.js';
import { authRoutes } from './auth.js';
import { docsRoutes } from './docs.js';
import { imageRoutes } from './images.js';
import { organizationRoutes } from './organizations.js';
import { userRoutes } from './users.js';

export const allRoutes: RouteDef[] = [...authRoutes, ...organizationRoutes, ...userRoutes, ...imageRoutes];
allRoutes.push(...docsRoutes(() => allRoutes));
