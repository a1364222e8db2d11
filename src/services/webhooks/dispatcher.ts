/** Starting the outbox dispatcher workflow (each API process calls this at start; one runs per namespace). */
import { startWorkflow, type Client } from '../../adapters/temporal.js';
import type { Config } from '../../config.js';
import { WEBHOOK_DISPATCHER_ID } from '../../domain/webhooks/rules.js';

/** Starts the dispatcher unless it runs (a second API process finds it running and leaves it). */
export async function ensureWebhookDispatcher(client: Client, config: Config): Promise<void> {
  await startWorkflow(client, config, {
    workflowType: 'dispatchWebhookEvents',
    workflowId: WEBHOOK_DISPATCHER_ID,
    args: [],
    keys: { scope: 'system' },
    about: { what: 'Webhook outbox dispatcher: one deliverWebhook workflow per delivery' },
    // A dispatcher that ended (terminated by an operator) may be started again.
    reuse: 'ALLOW_DUPLICATE',
  });
}
