/** Input of the refundOrderCancellation workflow (id `order-cancel-<cancellationId>`), shared by the workflow, its activity and the API. */
export interface CancellationRefundInput {
  organizationId: string;
  cancellationId: string;
  /** The order's provider charge. */
  chargeId: string;
  /** Decimal string: the cancelled amount. */
  amount: string;
  /** The provider's refund idempotency key (also the workflow id): `order-cancel-<cancellationId>`. */
  refundKey: string;
}
