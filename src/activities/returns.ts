/** Activities of the returnOrder workflow: one-line delegates to src/services/returns/steps.ts (idempotent per return). */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { closeReturn, recordReturnRefund, remindReturn, settleReturn, syncReturn } from '../services/returns/steps.js';
import type { ReturnRef } from '../workflows/return-order-defs.js';
import { mapped } from './failures.js';

export function createReturnActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    syncReturn: (input: ReturnRef & { expire: boolean }) => mapped(() => syncReturn(deps.orm.em.fork(), input)),
    remindReturn: (input: ReturnRef) => mapped(() => remindReturn(deps.orm.em.fork(), deps.config, input)),
    settleReturn: (input: ReturnRef) => mapped(() => settleReturn(deps.orm.em.fork(), input)),
    recordReturnRefund: (input: ReturnRef) => mapped(() => recordReturnRefund(deps.orm.em.fork(), input)),
    closeReturn: (input: ReturnRef) => mapped(() => closeReturn(deps.orm.em.fork(), input)),
  };
}
