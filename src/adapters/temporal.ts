/**
 * Temporal client side: connecting, search attribute keys, and starting a workflow
 * exactly once per business key (a second start with the same id is a no-op).
 */
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { Config } from '../config.js';
import { taskQueue } from '../config.js';
import type { SendEmailInput } from '../workflows/send-email-defs.js';

export const SA = {
  OrganizationId: defineSearchAttributeKey('OrganizationId', SearchAttributeType.KEYWORD),
  CustomerNumber: defineSearchAttributeKey('CustomerNumber', SearchAttributeType.KEYWORD),
  OrderNumber: defineSearchAttributeKey('OrderNumber', SearchAttributeType.KEYWORD),
  InvoiceNumber: defineSearchAttributeKey('InvoiceNumber', SearchAttributeType.KEYWORD),
  SalesRepNumber: defineSearchAttributeKey('SalesRepNumber', SearchAttributeType.KEYWORD),
  ImportKind: defineSearchAttributeKey('ImportKind', SearchAttributeType.KEYWORD),
};

export async function connectTemporal(config: Config): Promise<Client> {
  const connection = await Connection.connect({ address: config.temporal.address });
  return new Client({ connection, namespace: config.temporal.namespace });
}

export interface BusinessKeys {
  organizationId?: string | null;
  customerNumber?: string | null;
  orderNumber?: string | null;
  invoiceNumber?: string | null;
  salesRepNumber?: string | null;
  importKind?: string | null;
}

export function searchAttributes(keys: BusinessKeys): SearchAttributePair[] {
  const out: SearchAttributePair[] = [];
  if (keys.organizationId) out.push({ key: SA.OrganizationId, value: keys.organizationId });
  if (keys.customerNumber) out.push({ key: SA.CustomerNumber, value: keys.customerNumber });
  if (keys.orderNumber) out.push({ key: SA.OrderNumber, value: keys.orderNumber });
  if (keys.invoiceNumber) out.push({ key: SA.InvoiceNumber, value: keys.invoiceNumber });
  if (keys.salesRepNumber) out.push({ key: SA.SalesRepNumber, value: keys.salesRepNumber });
  if (keys.importKind) out.push({ key: SA.ImportKind, value: keys.importKind });
  return out;
}

/** Starts `workflowType` with id `workflowId` unless it already ran or runs; returns whether it started. */
export async function startOnce(
  client: Client,
  config: Config,
  opts: { workflowType: string; workflowId: string; args: unknown[]; queue?: 'commerce' | 'media' | 'imports'; keys: BusinessKeys },
): Promise<boolean> {
  try {
    await client.workflow.start(opts.workflowType, {
      workflowId: opts.workflowId,
      taskQueue: taskQueue(config, opts.queue ?? 'commerce'),
      args: opts.args,
      typedSearchAttributes: searchAttributes(opts.keys),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
    return true;
  } catch (e) {
    if (e instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw e;
  }
}

/** Queues an e-mail through the sendEmail workflow; `emailId` is its business key. */
export async function queueEmail(client: Client, config: Config, input: SendEmailInput): Promise<void> {
  await startOnce(client, config, {
    workflowType: 'sendEmail',
    workflowId: `email-${input.emailId}`,
    args: [input],
    keys: { organizationId: input.organizationId },
  });
}
