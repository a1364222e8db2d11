/** The `payment.failed` webhook event of a declined card charge (invoice card payment or checkout), written once per attempt. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { moneyNumber } from '../../domain/money.js';
import { Invoice } from '../../entities/index.js';
import { emitEventOnce } from '../webhooks/events.js';

/** A declined card charge of an invoice card payment or a checkout, as the workflow saw it. */
export interface PaymentFailedInput {
  organizationId: string;
  /** Unique per attempt (the workflow id and run id): a retried activity writes the event once. */
  eventKey: string;
  source: 'invoice' | 'checkout';
  invoiceId: string | null;
  invoiceNumber: string | null;
  cartId: string | null;
  orderNumber: string | null;
  customerNumber: string | null;
  /** Decimal string. */
  amount: string;
  currencyCode: string;
  message: string;
  /** The failure's details (AppError errors: `card: [<provider code>]`). */
  details: unknown;
}

/** The provider's decline code from a payment_required failure's details, else card_declined. */
function declineCode(details: unknown): string {
  const errors = Array.isArray(details) ? (details[0] as unknown) : details;
  if (errors && typeof errors === 'object' && 'card' in errors) {
    const card = (errors as { card: unknown }).card;
    if (Array.isArray(card) && typeof card[0] === 'string') return card[0];
  }
  return 'card_declined';
}

/** Writes the `payment.failed` webhook event of a declined charge; idempotent per event key. */
export async function recordPaymentFailed(em: EntityManager, input: PaymentFailedInput): Promise<void> {
  const invoice = input.invoiceId ? await em.findOne(Invoice, { id: input.invoiceId, organization: input.organizationId }) : null;
  await emitEventOnce(
    em,
    input.organizationId,
    'payment.failed',
    {
      source: input.source,
      invoiceId: input.invoiceId,
      invoiceNumber: input.invoiceNumber,
      cartId: input.cartId,
      orderNumber: input.orderNumber,
      customerNumber: input.customerNumber ?? invoice?.customerNumber ?? null,
      amount: moneyNumber(input.amount, input.currencyCode),
      currencyCode: input.currencyCode,
      code: declineCode(input.details),
      message: input.message,
    },
    `payment.failed:${input.eventKey}`,
  );
}
