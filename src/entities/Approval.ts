import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { ApprovalStatus, BuyerRole } from '../domain/approvals/rules.js';

/**
 * A user's buyer role at a customer and their spending limits (customer's currency; null = no
 * limit). Primary key (organization_id, customer_id, user_id); FKs lead with organization_id.
 */
export const CustomerBuyer = defineEntity({
  name: 'CustomerBuyer',
  properties: {
    organizationId: p.uuid().primary(),
    customerId: p.uuid().primary(),
    userId: p.uuid().primary(),
    role: p.string().length(20).$type<BuyerRole>(),
    orderLimit: p.decimal().precision(19).scale(4).nullable(),
    monthlyLimit: p.decimal().precision(19).scale(4).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type CustomerBuyer = InferEntity<typeof CustomerBuyer>;

/** One entry of an approval's chain: who was asked when, and what they answered. */
export interface ApprovalChainEntry {
  key: string;
  at: string;
  type: 'Asked' | 'Escalated' | 'Approved' | 'Rejected' | 'Expired' | 'TotalChanged' | 'Supersedes' | 'Withdrawn';
  level: number | null;
  userIds: string[];
  by: string | null;
  note: string | null;
}

/** What an approval request holds. */
export type ApprovalSubject = 'Cart' | 'Quote' | 'Order';

/**
 * An order held for a buyer-side approval (workflow approvePurchase, id `approval-<id>`): a checkout,
 * a quote accept or a posted order. Holds the checkout's (or the accept's) input (never card data: a
 * tokenized profile id at most) so an approval continues exactly that. Primary key (organization_id, id).
 */
export const ApprovalRequest = defineEntity({
  name: 'ApprovalRequest',
  properties: {
    organizationId: p.uuid().primary(),
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    status: p.string().length(20).$type<ApprovalStatus>(),
    customerId: p.uuid().nullable(),
    customerNumber: p.string().length(100),
    /** What the request holds (docs/security.md "Admission of orders"): a checkout (Cart), a quote accept (Quote) or a posted order (Order). */
    subject: p.string().length(10).$type<ApprovalSubject>().default('Cart'),
    /** Cart: the held checkout's cart. */
    cartId: p.uuid().nullable(),
    /** Quote: the quote whose accept waits (it stays Quoted until the decision). */
    quoteId: p.uuid().nullable(),
    /** Order: the order posted by the buyer, stored PendingApproval until the decision. */
    orderId: p.uuid().nullable(),
    requesterUserId: p.uuid(),
    requesterEmail: p.string().length(254).nullable(),
    requesterName: p.string().length(300).nullable(),
    reason: p.text(),
    currencyCode: p.string().length(3),
    total: p.decimal().precision(19).scale(4),
    lines: p.json<{ sku: string; name: string; quantity: number; unitPrice: string; lineTotal: string }[]>(),
    checkout: p.json<Record<string, unknown>>(),
    level: p.integer().default(1),
    chain: p.json<ApprovalChainEntry[]>(),
    decidedBy: p.string().length(100).nullable(),
    decisionReason: p.text().nullable(),
    orderNumber: p.string().length(50).nullable(),
    /** Superseded: the request asked for the new total (null when the new total needed none). */
    supersededBy: p.uuid().nullable(),
    /** The request this one replaced (its total changed at approval). */
    supersedes: p.uuid().nullable(),
    /** Superseded: the cart's total at current prices when the approve found it changed. */
    repricedTotal: p.decimal().precision(19).scale(4).nullable(),
    expiresAt: p.datetime(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  indexes: [
    { name: 'approval_request_org_status_index', properties: ['organizationId', 'status'] },
    { name: 'approval_request_org_cart_index', properties: ['organizationId', 'cartId'] },
  ],
  uniques: [
    {
      name: 'approval_request_one_pending_per_cart',
      expression: `create unique index "approval_request_one_pending_per_cart" on "approval_request" ("organization_id", "cart_id") where "status" = 'Pending'`,
    },
    {
      name: 'approval_request_one_pending_per_quote',
      expression: `create unique index "approval_request_one_pending_per_quote" on "approval_request" ("organization_id", "quote_id") where "status" = 'Pending' and "quote_id" is not null`,
    },
  ],
});
export type ApprovalRequest = InferEntity<typeof ApprovalRequest>;
