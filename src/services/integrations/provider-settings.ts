/**
 * What an organization's enabled integrations mean for the code that talks to the outside:
 * the payment provider to charge through, the SMTP server to send through. Null means "no
 * enabled integration of that type": the deployment's defaults apply (DESIGN).
 *
 * Call sites: `gatewayFor` here (every charge, refund, card tokenization and hosted setup: the
 * adapter src/adapters/payment-gateway.ts receives the settings), src/activities/email.ts
 * `deliverEmail` (every e-mail of an organization: the mail adapter receives the settings).
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import type { Config } from '../../config.js';
import { OutboundError, resolveAllowed } from '../../adapters/http-client.js';
import { enabledIntegrationSettings, type IntegrationSettingsCache } from './integrations.js';

export type { IntegrationSettingsCache };
import type { OwnMailServer } from '../../adapters/mail.js';
import { defaultPaymentSettings, providerClient, type PaymentGateway, type PaymentProviderSettings } from '../../adapters/payment-gateway.js';

export interface OrganizationPaymentSettings extends PaymentProviderSettings {
  /** Secret the organization's provider signs hosted-payment callbacks with, when set. */
  callbackSecret: string | null;
}

/** The enabled Payment integration's provider, endpoint and API key for `organizationId`, or null. */
export async function resolvePaymentSettings(em: EntityManager, config: Config, organizationId: string, cache?: IntegrationSettingsCache): Promise<OrganizationPaymentSettings | null> {
  const s = await enabledIntegrationSettings(em, config, organizationId, 1, cache);
  if (!s || (s.provider !== 'ProviderDirect' && s.provider !== 'ProviderHosted')) return null;
  return {
    provider: s.provider,
    baseUrl: s.configuration.Endpoint.replace(/\/+$/, ''),
    apiKey: s.secrets.ApiKey ?? '',
    callbackSecret: s.secrets.CallbackSecret ?? null,
    operatorConfigured: false,
  };
}

/**
 * The provider settings of an organization: its enabled Payment integration, else the deployment's
 * settings. An explicit lookup (no registry).
 */
export async function paymentSettingsFor(em: EntityManager, config: Config, organizationId: string, cache?: IntegrationSettingsCache): Promise<PaymentProviderSettings> {
  return (await resolvePaymentSettings(em, config, organizationId, cache)) ?? defaultPaymentSettings(config);
}

/**
 * The payment gateway adapter for an organization, given its provider settings; `cache` (the
 * process's ReadCache) spares the integration read on the hot paths (checkout, charges).
 */
export async function gatewayFor(em: EntityManager, config: Config, organizationId: string, cache?: IntegrationSettingsCache): Promise<PaymentGateway> {
  return providerClient(await paymentSettingsFor(em, config, organizationId, cache), { allowPrivateNetworks: config.outboundAllowPrivateNetworks });
}

/**
 * The secret hosted-payment callbacks of `organizationId` are signed with: its enabled
 * ProviderHosted integration's CallbackSecret when set, else the deployment's
 * PROVIDER_CALLBACK_SECRET ('' when unset: nothing verifies).
 */
export async function hostedCallbackSecret(em: EntityManager, config: Config, organizationId: string): Promise<string> {
  const s = await resolvePaymentSettings(em, config, organizationId);
  return s?.provider === 'ProviderHosted' && s.callbackSecret ? s.callbackSecret : config.providerCallbackSecret;
}

/** An organization's own SMTP server and sender, as the mailer takes it. */
export type OrganizationMailSettings = OwnMailServer;

/**
 * The enabled Email (Smtp) integration's transport options and sender for `organizationId`, or
 * null. The host must resolve to public addresses unless OUTBOUND_ALLOW_PRIVATE_NETWORKS (never to
 * link-local or metadata ones); the transport connects to the checked address, never re-resolving.
 */
export async function resolveMailSettings(em: EntityManager, config: Config, organizationId: string, cache?: IntegrationSettingsCache): Promise<OrganizationMailSettings | null> {
  const s = await enabledIntegrationSettings(em, config, organizationId, 4, cache);
  if (!s || s.provider !== 'Smtp') return null;
  const host = s.configuration.Host;
  let addresses: string[];
  try {
    addresses = await resolveAllowed(host, { allowPrivateNetworks: config.outboundAllowPrivateNetworks });
  } catch (e) {
    if (e instanceof OutboundError) throw new Error(`The organization's SMTP integration cannot be used: ${e.message}`);
    throw e;
  }
  const transport: SMTPTransport.Options = {
    host: addresses[0],
    port: Number(s.configuration.Port),
    secure: s.configuration.Secure === 'true',
    auth: s.secrets.Username ? { user: s.secrets.Username, pass: s.secrets.Password ?? '' } : undefined,
    tls: { servername: host },
  };
  const cacheKey = createHash('sha256')
    .update(JSON.stringify([organizationId, s.configuration, s.secrets, addresses[0]]))
    .digest('hex');
  return { cacheKey, transport, from: s.configuration.From };
}
