import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import { createEmailActivities } from './email.js';

export interface ActivityDeps {
  orm: MikroORM;
  config: Config;
}

/** All activities, built from their dependencies (the worker calls this once). */
export function createActivities(deps: ActivityDeps) {
  return {
    ...createEmailActivities(deps),
  };
}
