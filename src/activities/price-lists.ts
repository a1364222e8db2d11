/** Price list activities (workflow priceListSchedule): one-line delegates to src/services/pricing/schedule.ts. */
import type { MikroORM } from '@mikro-orm/postgresql';
import { syncPriceListSchedule } from '../services/pricing/schedule.js';
import type { PriceListScheduleInput, PriceListScheduleStep } from '../workflows/price-list-schedule-defs.js';
import { mapped } from './failures.js';

export function createPriceListActivities(deps: { orm: MikroORM }) {
  return {
    /** Emits the activation or expiry that is due (once per period in force) and answers the next boundary. */
    syncPriceListSchedule: (input: PriceListScheduleInput): Promise<PriceListScheduleStep> => mapped(() => syncPriceListSchedule(deps.orm.em.fork(), input)),
  };
}
