/** Input and result of the checkoutCart workflow, shared by the workflow, its activities and the API (no activity proxies here). */

export interface CheckoutInput {
  organizationId: string;
  cartId: string;
  customerNumber: string;
  channel: string;
  paymentProfileId: string | null;
  userId: string | null;
  /** 'OnAccount': no charge; the order is checked against the customer's credit limit when it is recorded. Absent: a card. */
  paymentMethod?: 'OnAccount';
  /**
   * The cart total the checkout was admitted for: by complete-checkout (the total it checked, against
   * the buyer's spending limits among others) or, when an approval continues it, the total approved.
   * The reservation refuses (409, nothing charged) a cart that no longer comes to it. Absent from
   * inputs recorded before it.
   */
  expectedAmount?: string;
  /**
   * The lines the checkout was admitted for (sku, quantity, unit price): those complete-checkout
   * checked, or, when an approval continues it, those approved. The reservation and the order
   * refuse (409) a cart whose lines differ, even at the same total. Absent from inputs recorded before it.
   */
  expectedLines?: { sku: string; quantity: number; unitPrice: string }[];
}

export interface CheckoutResult {
  orderId: string;
  orderNumber: string;
  /** The provider's charge id; the workflow run id when nothing was charged (zero total). */
  confirmationId: string;
}
