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
}

export interface CheckoutResult {
  orderId: string;
  orderNumber: string;
  /** The provider's charge id; the workflow run id when nothing was charged (zero total). */
  confirmationId: string;
}
