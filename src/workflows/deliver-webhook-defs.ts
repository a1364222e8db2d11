/** Input and result of the deliverWebhook workflow (started by dispatchWebhookEvents; no activity proxies here). */

export interface DeliverWebhookInput {
  organizationId: string;
  deliveryId: string;
  /** Delay before each attempt, ms (the first is 0); DESIGN's schedule scaled by configuration. */
  delaysMs: number[];
}

export interface DeliverWebhookResult {
  status: string;
  attempts: number;
}
