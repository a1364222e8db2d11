/** The `mail` task queue has no workflows: its worker runs e-mail delivery activities only (mail-delivery.ts). */
export {};
