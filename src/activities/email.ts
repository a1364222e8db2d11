/** E-mail activities: one-line delegates to src/services/email/delivery.ts (idempotent: a message marked sent is not sent again). */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Mailer } from '../adapters/mail.js';
import { deliverEmail } from '../services/email/delivery.js';
import type { IntegrationSettingsCache } from '../services/integrations/provider-settings.js';
import type { SendEmailInput } from '../workflows/send-email-defs.js';

export function createEmailActivities(deps: { orm: MikroORM; config: Config; readCache?: IntegrationSettingsCache; mailer: Mailer }) {
  return {
    deliverEmail: (input: SendEmailInput) => deliverEmail(deps.orm.em.fork(), deps, input),
  };
}
