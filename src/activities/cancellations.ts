/** Activities of the refundOrderCancellation workflow: one-line delegates to src/services/orders/cancel.ts (idempotent per cancellation). */
import type { MikroORM } from '@mikro-orm/postgresql';
import { recordCancellationRefund } from '../services/orders/cancel.js';
import type { CancellationRefundInput } from '../workflows/cancel-order-defs.js';
import { mapped } from './failures.js';

export function createCancellationActivities(deps: { orm: MikroORM }) {
  return {
    recordCancellationRefund: (input: CancellationRefundInput) => mapped(() => recordCancellationRefund(deps.orm.em.fork(), input)),
  };
}
