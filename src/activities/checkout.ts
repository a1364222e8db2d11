/**
 * Checkout activities. Temporal runs each at least once, so each is idempotent by a key:
 * reserveOrderNumber by the cart (the number is stored on the cart), createOrder by
 * originationCartId (unique per organization; the order insert and closing the cart are one
 * transaction). The charge and its void are payment activities (src/activities/payments.ts),
 * keyed `checkout-<cartId>` and `void-checkout-<cartId>`.
 */
import { LockMode, type MikroORM } from '@mikro-orm/postgresql';
import { invoiceCheckoutOrder, type CheckoutInvoiceInput } from '../invoices/from-order.js';
import { Decimal } from 'decimal.js';
import type { Config } from '../config.js';
import { minorUnitDigits, roundMoney } from '../domain/pricing/index.js';
import { Cart, Customer, Order, OrderItem, OrganizationSalesRep } from '../entities/index.js';
import type { OrderAddress } from '../entities/Order.js';
import { AppError, isUniqueViolation } from '../errors.js';
import { nextOrderNumber } from '../orders/numbers.js';
import { mapped } from './failures.js';

export interface CheckoutInput {
  organizationId: string;
  cartId: string;
  customerNumber: string;
  channel: string;
  paymentProfileId: string | null;
  userId: string | null;
}

export interface Prepared {
  orderNumber: string;
  amount: string;
  currency: string;
  /** Set when the order already exists (a finished checkout re-run). */
  existingOrderId: string | null;
}

const cartAddressToOrder = (a: Record<string, unknown> | null | undefined): OrderAddress | null =>
  a
    ? {
        address1: (a.line1 as string) ?? null,
        address2: (a.line2 as string) ?? null,
        city: (a.city as string) ?? null,
        stateProvince: (a.state as string) ?? null,
        zipPostalCode: (a.postalCode as string) ?? null,
        country: (a.country as string) ?? null,
      }
    : null;


export function createCheckoutActivities(deps: { orm: MikroORM; config: Config }) {
  return {
    /** The order's invoice, Issued and paid by the checkout charge (idempotent; see src/invoices/from-order.ts). */
    async invoiceCheckoutOrder(input: CheckoutInvoiceInput): Promise<{ invoiceId: string; invoiceNumber: string; customerNumber: string; reminderDelaySeconds: number | null }> {
      const res = await invoiceCheckoutOrder(deps.orm.em.fork(), input);
      return { ...res, reminderDelaySeconds: deps.config.invoiceReminderDelayOverrideSeconds };
    },

    async reserveOrderNumber(input: CheckoutInput): Promise<Prepared> {
      return mapped(async () => {
        const em = deps.orm.em.fork();
        return em.transactional(async (tem) => {
          const existing = await tem.findOne(Order, { organization: input.organizationId, originationCartId: input.cartId });
          const cart = await tem.findOne(Cart, { organization: input.organizationId, id: input.cartId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
          if (!cart) throw AppError.notFound('Cart');
          await tem.populate(cart, ['items']);
          const amount = cart.items.getItems().reduce((s, i) => s.plus(roundMoney(i.lineTotal, cart.currencyCode)), new Decimal(0));
          if (existing)
            return { orderNumber: existing.orderNumber, amount: amount.toFixed(2), currency: cart.currencyCode, existingOrderId: existing.id };
          if (cart.status !== 'PENDING') throw AppError.badRequest('The cart is closed.');
          if (!cart.items.length) throw AppError.badRequest('The cart is empty.');
          if (!cart.reservedOrderNumber) cart.reservedOrderNumber = await nextOrderNumber(tem, input.organizationId);
          return {
            orderNumber: cart.reservedOrderNumber,
            amount: amount.toFixed(minorUnitDigits(cart.currencyCode)),
            currency: cart.currencyCode,
            existingOrderId: null,
          };
        });
      });
    },

    /** Creates the order from the cart and closes the cart, in one transaction; an existing order for the cart is returned. */
    async createOrderFromCart(input: CheckoutInput & { orderNumber: string; chargeId: string | null }): Promise<{ orderId: string; orderNumber: string; customerEmail: string | null; total: string; currency: string }> {
      return mapped(async () => {
        const em = deps.orm.em.fork();
        const found = async () => {
          const o = await em.fork().findOne(Order, { organization: input.organizationId, originationCartId: input.cartId });
          return o ? { orderId: o.id, orderNumber: o.orderNumber, customerEmail: o.customer.companyEmail ?? null, total: o.total, currency: o.currencyCode } : null;
        };
        const already = await found();
        if (already) return already;
        try {
          return await em.transactional(async (tem) => {
            const cart = await tem.findOneOrFail(Cart, { organization: input.organizationId, id: input.cartId }, { populate: ['items'] });
            const customer = await tem.findOne(Customer, { organization: input.organizationId, customerNumber: cart.customerNumber }, { populate: ['addresses'] });
            const billing = customer?.addresses.getItems().find((a) => a.addressType === 'Billing' && a.isPrimary) ?? customer?.addresses.getItems().find((a) => a.addressType === 'Billing');
            const rep = customer?.repNumber
              ? await tem.findOne(OrganizationSalesRep, { organization: input.organizationId, repNumber: customer.repNumber }, { populate: ['salesRep'] })
              : null;
            const cur = cart.currencyCode;
            const lines = [...cart.items.getItems()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
            const subtotal = lines.reduce((s, i) => s.plus(roundMoney(i.lineTotal, cur)), new Decimal(0));
            const order = tem.create(Order, {
              organization: input.organizationId,
              orderNumber: input.orderNumber,
              orderDate: new Date(),
              orderStatus: 'Pending',
              orderType: cart.orderType,
              poNumber: cart.poNumber ?? null,
              priceTier: cart.pricingTier,
              currencyCode: cur,
              terms: customer?.terms ?? null,
              channel: input.channel,
              notes: cart.specialInstructions ?? null,
              originationCartId: cart.id,
              customerNumber: cart.customerNumber,
              customer: {
                customerNumber: cart.customerNumber,
                companyName: customer?.companyName ?? cart.companyName,
                companyEmail: customer?.companyEmail ?? null,
                companyPhone: customer?.companyPhone ?? null,
                companyFax: customer?.companyFax ?? null,
                billingAddress: cartAddressToOrder(billing as unknown as Record<string, unknown>),
                shippingAddress: cartAddressToOrder(cart.shippingAddress as Record<string, unknown>),
              },
              primarySalesRep: rep
                ? {
                    repNumber: rep.repNumber,
                    firstName: rep.salesRep.firstName,
                    lastName: rep.salesRep.lastName,
                    fullName: `${rep.salesRep.firstName} ${rep.salesRep.lastName}`,
                    email: rep.salesRep.email,
                    phoneNumber: rep.salesRep.phoneNumber ?? null,
                  }
                : null,
              repNumber: customer?.repNumber ?? null,
              shippingDetails: null,
              subtotal: subtotal.toString(),
              total: subtotal.toString(),
              paymentChargeId: input.chargeId,
              createdByUserId: input.userId,
              createdByUserType: null,
            });
            lines.forEach((l, position) =>
              order.items.add(tem.create(OrderItem, { order, position, sku: l.sku, productName: l.name, quantity: l.quantity, price: l.unitPrice, subTotal: roundMoney(l.lineTotal, cur).toString() })),
            );
            cart.status = 'CLOSED';
            cart.updatedAt = new Date();
            await tem.flush();
            return { orderId: order.id, orderNumber: order.orderNumber, customerEmail: order.customer.companyEmail ?? null, total: order.total, currency: cur };
          });
        } catch (e) {
          // A concurrent attempt (e.g. a previous activity run that the worker lost) won the race.
          if (isUniqueViolation(e, 'order_org_cart_unique')) {
            const o = await found();
            if (o) return o;
          }
          if (isUniqueViolation(e, 'order_org_number_unique')) throw AppError.conflict(`The order number ${input.orderNumber} is already used by another order.`);
          throw e;
        }
      });
    },
  };
}
