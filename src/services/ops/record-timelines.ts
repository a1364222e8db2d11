/**
 * GET /api/orders/{id}/timeline (the order's records: checkout, invoices, shipments, returns, cancellations, credit notes; and the steps of checkout, invoices, e-mails, the fulfillment workflow and shipment e-mails, cancellation refunds, returns), /api/invoices/{id}/timeline, /api/imports/{id}/timeline and
 * /api/commissions/statements/{id}/timeline: the record is looked up with its own read rules
 * first (another organization, another customer, another rep: 404), then its workflows'
 * steps are read from Temporal (./timeline.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client } from '../../adapters/temporal.js';
import { orderRecords, type OrderRecord } from '../../domain/ops/order-records.js';
import { CreditNote, Invoice, OrderCancellation, OrderReturn, Shipment, ShipmentLine } from '../../entities/index.js';
import { returnWorkflowId } from '../../workflows/return-order-defs.js';
import { fulfillmentWorkflowId } from '../../workflows/fulfill-order-defs.js';
import type { Principal } from '../../http/auth.js';
import { findStatement } from '../commissions/statements.js';
import { findJob } from '../imports/jobs.js';
import { findInvoice } from '../invoices/invoices.js';
import { invoiceWorkflowId } from '../invoices/signal.js';
import { findOrder } from '../orders/orders.js';
import { readTimeline, type TimelineStep } from './timeline.js';

export async function orderTimeline(em: EntityManager, temporal: Client, orgId: string, auth: Principal, orderId: string): Promise<{ OrderId: string; OrderNumber: string; Records: OrderRecord[]; Steps: TimelineStep[] }> {
  const order = await findOrder(em, orgId, auth, orderId);
  const invoices = await em.find(Invoice, { organization: orgId, orderId: order.id }, { orderBy: { createdAt: 'asc' } });
  const shipments = await em.find(Shipment, { organizationId: orgId, orderId: order.id }, { orderBy: { shippedAt: 'asc' } });
  const shipmentLines = shipments.length ? await em.find(ShipmentLine, { organizationId: orgId, shipmentId: { $in: shipments.map((x) => x.id) } }, { orderBy: { position: 'asc' } }) : [];
  const cancellations = await em.find(OrderCancellation, { organizationId: orgId, orderId: order.id }, { orderBy: { createdAt: 'asc' } });
  const returns = await em.find(OrderReturn, { organizationId: orgId, orderId: order.id }, { orderBy: { createdAt: 'asc' } });
  const creditNotes = await em.find(CreditNote, { organizationId: orgId, orderId: order.id }, { orderBy: { createdAt: 'asc' } });
  const Records = orderRecords({
    order: { id: order.id, orderNumber: order.orderNumber, orderStatus: order.orderStatus, currencyCode: order.currencyCode, total: order.total, paymentMethod: order.paymentMethod ?? null, createdAt: order.createdAt },
    invoices: invoices.map((i) => ({ id: i.id, invoiceNumber: i.invoiceNumber, status: i.status, currencyCode: i.currencyCode, total: i.total, createdAt: i.createdAt })),
    shipments: shipments.map((x) => ({ ...x, lines: shipmentLines.filter((l) => l.shipmentId === x.id) })),
    returns: returns.map((r) => ({ ...r, lines: r.lines.map((l) => ({ sku: l.sku, quantity: l.quantity, amount: l.amount, reason: l.reason })) })),
    cancellations,
    creditNotes,
  });
  const Steps = await readTimeline(temporal, {
    organizationId: orgId,
    workflowIds: [
      ...(order.originationCartId ? [`checkout-${order.originationCartId}`] : []),
      `email-order-confirmation-${order.id}`,
      ...invoices.map((i) => invoiceWorkflowId(i.id)),
      // Fulfillment (docs/fulfillment.md "Timeline"): the process and each shipment's e-mail.
      ...(shipments.length ? [fulfillmentWorkflowId(order.id), ...shipments.map((s) => `email-shipment-${s.id}`)] : []),
      // Cancellations' card refunds and returns (docs/returns.md): each step of each return's workflow, its reminder e-mails.
      ...cancellations.flatMap((c) => (c.refundKey ? [c.refundKey] : [])),
      ...returns.map((r) => returnWorkflowId(r.id)),
    ],
    workflowIdPrefixes: returns.map((r) => `email-return-reminder-${r.id}-`),
    keys: { OrderNumber: order.orderNumber },
  });
  return { OrderId: order.id, OrderNumber: order.orderNumber, Records, Steps };
}

export async function invoiceTimeline(em: EntityManager, temporal: Client, orgId: string, auth: Principal, invoiceId: string): Promise<{ InvoiceId: string; InvoiceNumber: string; Steps: TimelineStep[] }> {
  const inv = await findInvoice(em, orgId, invoiceId, auth);
  const Steps = await readTimeline(temporal, { organizationId: orgId, workflowIds: [invoiceWorkflowId(inv.id)], keys: { InvoiceNumber: inv.invoiceNumber } });
  return { InvoiceId: inv.id, InvoiceNumber: inv.invoiceNumber, Steps };
}

export async function importTimeline(em: EntityManager, temporal: Client, orgId: string, jobId: string): Promise<{ ImportJobId: string; Steps: TimelineStep[] }> {
  const job = await findJob(em, orgId, jobId);
  const generations = Array.from({ length: job.generation + 1 }, (_, g) => `email-import-completed-${job.id}-${g}`);
  const Steps = await readTimeline(temporal, { organizationId: orgId, workflowIds: [job.workflowId, ...generations] });
  return { ImportJobId: job.id, Steps };
}

export async function statementTimeline(em: EntityManager, temporal: Client, orgId: string, auth: Principal, statementId: string): Promise<{ StatementId: string; Steps: TimelineStep[] }> {
  const st = await findStatement(em, orgId, statementId, auth);
  const Steps = await readTimeline(temporal, { organizationId: orgId, workflowIds: [st.workflowId], workflowIdPrefixes: [`email-commission-reminder-${st.id}-`] });
  return { StatementId: st.id, Steps };
}
