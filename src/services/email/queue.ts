/**
 * Queuing an e-mail from a use case: one sendEmail workflow per business key (`email-<emailId>`),
 * started once through the Temporal client's start outbox (src/adapters/temporal.ts `startOnce`),
 * so an e-mail asked for while Temporal is away is sent once it is back.
 */
import { startOnce, type BusinessKeys, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import type { SendEmailInput } from '../../workflows/send-email-defs.js';
import { emailAbout } from '../../workflows/tags-defs.js';

/**
 * Queues an e-mail through the sendEmail workflow; `emailId` is its business key; `keys` tag it
 * beyond its organization. An e-mail of no organization (a password reset) is a system workflow.
 */
export async function queueEmail(client: Client, config: Config, input: SendEmailInput, keys: BusinessKeys = {}): Promise<void> {
  const tags: BusinessKeys = { organizationId: input.organizationId, ...(input.organizationId ? {} : { scope: 'system' as const }), ...keys };
  await startOnce(client, config, {
    workflowType: 'sendEmail',
    workflowId: `email-${input.emailId}`,
    args: [input],
    keys: tags,
    about: emailAbout(input.template, tags),
  });
}
