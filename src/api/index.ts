/** Every route of the API; a new module adds its array here (and so joins OpenAPI and the security matrix). */
import type { RouteDef } from '../http/route.js';
import { authRoutes } from './auth.js';
import { categoryRoutes } from './categories.js';
import { docsRoutes } from './docs.js';
import { organizationRoutes } from './organizations.js';
import { productRoutes } from './products.js';
import { userRoutes } from './users.js';

export const allRoutes: RouteDef[] = [...authRoutes, ...organizationRoutes, ...userRoutes, ...productRoutes, ...categoryRoutes];
allRoutes.push(...docsRoutes(() => allRoutes));
