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
}

export interface CheckoutResult {
  orderId: string;
  orderNumber: string;
  /** The provider's charge id; the workflow run id when nothing was charged (zero total). */
  confirmationId: string;
}
