/** Starting the outbox dispatcher workflow (each API process calls this at start; one runs per namespace). */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { taskQueue } from '../../config.js';
import { summaryMemo } from '../../adapters/temporal.js';
import { WEBHOOK_DISPATCHER_ID } from '../../domain/webhooks/rules.js';

export async function ensureWebhookDispatcher(client: Client, config: Config): Promise<void> {
  try {
    await client.workflow.start('dispatchWebhookEvents', {
      workflowId: WEBHOOK_DISPATCHER_ID,
      taskQueue: taskQueue(config, 'commerce'),
      args: [],
      memo: summaryMemo('Webhook outbox dispatcher: starts one deliverWebhook workflow per delivery (all organizations)'),
      // A dispatcher that ended (terminated by an operator) may be started again.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
  } catch (e) {
    if (!(e instanceof WorkflowExecutionAlreadyStartedError)) throw e;
  }
}
