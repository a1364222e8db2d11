import { randomUUID } from 'node:crypto';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { QuoteStatus } from '../domain/quotes/rules.js';

/** One line of a quote version. Buyer versions carry targetPrice; seller versions the prices. */
export interface QuoteVersionLine {
  sku: string;
  productName: string;
  quantity: number;
  targetPrice: string | null;
  /** The customer's tier price at this quantity when the version was made (quantity breaks applied). */
  listPrice: string | null;
  /** The price list that set listPrice (null or absent: the tier; versions made before lists record none). */
  priceListId?: string | null;
  unitPrice: string | null;
  netUnitPrice: string | null;
  lineTotal: string | null;
}

/** One step of the negotiation, kept for good: who, when, what. */
export interface QuoteVersion {
  version: number;
  kind: 'Request' | 'Offer' | 'Counter';
  /** Idempotency of the step: a retried activity finds its key and writes nothing. */
  key: string;
  by: { userId: string | null; role: string; repNumber: string | null };
  at: string;
  message: string | null;
  lines: QuoteVersionLine[];
  discountPercent: number | null;
  subtotal: string | null;
  discountAmount: string | null;
  total: string | null;
  expiresAt: string | null;
}

/**
 * A quote of a customer, negotiated by workflow `negotiateQuote` (id `quote-<id>`). The row holds
 * the current state and every version (`versions`, append-only); the workflow serializes the
 * steps. Primary key (organization_id, id); `quoteNumber` (`Q-000001`) is gapless per
 * organization (src/services/numbering.ts). An accepted quote names its order, and the order its quote.
 */
export const Quote = defineEntity({
  name: 'Quote',
  properties: {
    organizationId: p.uuid().primary(),
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    quoteNumber: p.string().length(50),
    status: p.string().length(20).$type<QuoteStatus>(),
    /** The customer record (FK (organization_id, customer_id) in the migration); null once that customer is deleted. */
    customerId: p.uuid().nullable(),
    customerNumber: p.string().length(100),
    companyName: p.string().length(300),
    priceTier: p.string().length(100),
    currencyCode: p.string().length(3),
    notes: p.text().nullable(),
    cartId: p.uuid().nullable(),
    requestedByUserId: p.string().length(100).nullable(),
    requestedByRole: p.string().length(20),
    versions: p.json<QuoteVersion[]>(),
    expiresAt: p.datetime().nullable(),
    orderId: p.uuid().nullable(),
    orderNumber: p.string().length(50).nullable(),
    rejectionReason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
  uniques: [{ name: 'quote_org_number_unique', properties: ['organizationId', 'quoteNumber'] }],
  indexes: [
    { name: 'quote_org_customer_id_index', properties: ['organizationId', 'customerId'] },
    { name: 'quote_org_status_index', properties: ['organizationId', 'status'] },
  ],
});
export type Quote = InferEntity<typeof Quote>;

/** Last quote number issued per organization (src/services/numbering.ts). */
export const QuoteNumberCounter = defineEntity({
  name: 'QuoteNumberCounter',
  properties: {
    organizationId: p.uuid().primary(),
    lastValue: p.bigint().default(0),
  },
});
export type QuoteNumberCounter = InferEntity<typeof QuoteNumberCounter>;
