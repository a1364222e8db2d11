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
  type: 'Asked' | 'Escalated' | 'Approved' | 'Rejected' | 'Expired' | 'TotalChanged' | 'Supersedes';
  level: number | null;
  userIds: string[];
  by: string | null;
  note: string | null;
}

/**
 * A checkout held for a buyer-side approval (workflow approvePurchase, id `approval-<id>`). Holds
 * the checkout's input (never card data: a tokenized profile id at most) so an approval continues
 * exactly that checkout. Primary key (organization_id, id).
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
    cartId: p.uuid(),
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
  ],
});
export type ApprovalRequest = InferEntity<typeof ApprovalRequest>;
