/** Every route of the API; a new module adds its array here (and so joins OpenAPI and the security matrix). */
import type { RouteDef } from '../http/route.js';
import { analyticsRoutes } from './analytics.js';
import { associationRoutes } from './associations.js';
import { authRoutes } from './auth.js';
import { commissionRoutes } from './commissions.js';
import { creditRoutes } from './credit.js';
import { customerRoutes } from './customers.js';
import { cartRoutes } from './carts.js';
import { categoryRoutes } from './categories.js';
import { catalogRoutes } from './catalogs.js';
import { orderRoutes } from './orders.js';
import { checkoutRoutes } from './checkout.js';
import { docsRoutes } from './docs.js';
import { healthRoutes } from './health.js';
import { imageRoutes } from './images.js';
import { importRoutes } from './imports.js';
import { invoiceRoutes } from './invoices.js';
import { organizationRoutes } from './organizations.js';
import { paymentRoutes } from './payments.js';
import { problemRoutes } from './problems.js';
import { productRoutes } from './products.js';
import { priceListRoutes } from './price-lists.js';
import { salesRepRoutes } from './salesreps.js';
import { userRoutes } from './users.js';
import { webhookRoutes } from './webhooks.js';
import { documentRoutes } from './documents.js';
import { integrationRoutes } from './integrations.js';
import { quoteRoutes } from './quotes.js';
import { approvalRoutes } from './approvals.js';
import { timelineRoutes } from './timelines.js';
import { stockRoutes } from './stock.js';
import { fulfillmentRoutes } from './fulfillment.js';
import { creditNoteRoutes } from './credit-notes.js';
import { returnRoutes } from './returns.js';

export const allRoutes: RouteDef[] = [
  ...healthRoutes,
  ...problemRoutes,
  ...authRoutes,
  ...organizationRoutes,
  ...userRoutes,
  ...customerRoutes,
  ...associationRoutes,
  ...salesRepRoutes,
  ...imageRoutes,
  ...stockRoutes,
  ...productRoutes,
  ...priceListRoutes,
  ...categoryRoutes,
  ...catalogRoutes,
  ...cartRoutes,
  ...checkoutRoutes,
  ...creditRoutes,
  ...orderRoutes,
  ...invoiceRoutes,
  ...creditNoteRoutes,
  ...returnRoutes,
  ...paymentRoutes,
  ...commissionRoutes,
  ...analyticsRoutes,
  ...importRoutes,
  ...webhookRoutes,
  ...documentRoutes,
  ...integrationRoutes,
  ...quoteRoutes,
  ...approvalRoutes,
  ...timelineRoutes,
  ...fulfillmentRoutes,
];
allRoutes.push(...docsRoutes(() => allRoutes));
