/**
 * Integration templates (DESIGN "Integrations"), fixed in code, and the pure rules around
 * them: which configuration and secret keys a template takes, validation of a submitted
 * configuration, and when a change requires a new connection test.
 */

export const INTEGRATION_TYPES = { 1: 'Payment', 2: 'Accounting', 3: 'Shipping', 4: 'Email', 5: 'Sms', 6: 'Analytics', 7: 'Crm', 8: 'Inventory' } as const;
export type IntegrationTypeId = keyof typeof INTEGRATION_TYPES;
export const INTEGRATION_TYPE_IDS = Object.keys(INTEGRATION_TYPES).map(Number) as IntegrationTypeId[];

/** ConfigurationField.type: 1 text, 2 whole number, 3 boolean (SPEC), 4 URL. */
export const FIELD_TYPES = { Text: 1, Number: 2, Boolean: 3, Url: 4 } as const;

export interface ConfigurationField {
  key: string;
  displayName: string;
  description: string;
  type: number;
  required: boolean;
  defaultValue: string;
}

export interface SecretField {
  key: string;
  displayName: string;
  description: string;
  required: boolean;
  isSensitive: boolean;
}

export interface IntegrationTemplate {
  type: IntegrationTypeId;
  provider: string;
  displayName: string;
  description: string;
  requiresOAuth: boolean;
  documentationUrl: string;
  logoUrl: string;
  supportedFeatures: string[];
  configurationFields: ConfigurationField[];
  secretFields: SecretField[];
}

const cfg = (key: string, displayName: string, type: number, required: boolean, description: string, defaultValue = ''): ConfigurationField => ({
  key,
  displayName,
  description,
  type,
  required,
  defaultValue,
});
const sec = (key: string, displayName: string, required: boolean, description: string): SecretField => ({
  key,
  displayName,
  description,
  required,
  isSensitive: true,
});

const paymentFields = [
  cfg('Endpoint', 'API endpoint', FIELD_TYPES.Url, true, "Base URL of the provider's API."),
  cfg('MerchantId', 'Merchant id', FIELD_TYPES.Text, false, 'Your merchant account at the provider.'),
  cfg('IsSandbox', 'Sandbox mode', FIELD_TYPES.Boolean, false, "Use the provider's test environment.", 'true'),
];

export const TEMPLATES: IntegrationTemplate[] = [
  {
    type: 1,
    provider: 'ProviderDirect',
    displayName: 'Direct card payments',
    description: 'Card-on-file payments: cards are tokenized once, charges use the stored profile.',
    requiresOAuth: false,
    documentationUrl: 'https://docs.example.com/integrations/provider-direct',
    logoUrl: 'https://docs.example.com/logos/provider-direct.svg',
    supportedFeatures: ['CardOnFile', 'Charges', 'Refunds', 'Voids'],
    configurationFields: paymentFields,
    secretFields: [
      sec('ApiKey', 'API key', true, 'Secret API key issued by the provider.'),
      sec('CallbackSecret', 'Callback secret', false, 'Secret that signs provider callbacks.'),
    ],
  },
  {
    type: 1,
    provider: 'ProviderHosted',
    displayName: 'Hosted payment page',
    description: "Customers enter their card on the provider's hosted page; the provider calls back with the result.",
    requiresOAuth: false,
    documentationUrl: 'https://docs.example.com/integrations/provider-hosted',
    logoUrl: 'https://docs.example.com/logos/provider-hosted.svg',
    supportedFeatures: ['HostedPaymentPage', 'Callbacks', 'CardOnFile'],
    configurationFields: paymentFields,
    secretFields: [
      sec('ApiKey', 'API key', true, 'Secret API key issued by the provider.'),
      sec('CallbackSecret', 'Callback secret', true, 'Secret that signs provider callbacks.'),
    ],
  },
  {
    type: 4,
    provider: 'Smtp',
    displayName: 'SMTP server',
    description: "Sends the organization's e-mails through its own SMTP server.",
    requiresOAuth: false,
    documentationUrl: 'https://docs.example.com/integrations/smtp',
    logoUrl: 'https://docs.example.com/logos/smtp.svg',
    supportedFeatures: ['TransactionalEmail'],
    configurationFields: [
      cfg('Host', 'Host', FIELD_TYPES.Text, true, 'SMTP server host name.'),
      cfg('Port', 'Port', FIELD_TYPES.Number, true, 'SMTP port (587 submission, 465 implicit TLS, 25).', '587'),
      cfg('From', 'From address', FIELD_TYPES.Text, true, 'Sender, e.g. "Acme <no-reply@acme.example>".'),
      cfg('Secure', 'Implicit TLS', FIELD_TYPES.Boolean, false, 'Connect with TLS from the start (port 465).', 'false'),
    ],
    secretFields: [sec('Username', 'User name', false, 'SMTP user name.'), sec('Password', 'Password', false, 'SMTP password.')],
  },
  ...([2, 3, 5, 6, 7, 8] as const).map(
    (type): IntegrationTemplate => ({
      type,
      provider: 'Http',
      displayName: `${INTEGRATION_TYPES[type]} over HTTP`,
      description: `A generic ${INTEGRATION_TYPES[type].toLowerCase()} system reached over HTTPS with an API key.`,
      requiresOAuth: false,
      documentationUrl: 'https://docs.example.com/integrations/http',
      logoUrl: 'https://docs.example.com/logos/http.svg',
      supportedFeatures: ['Http'],
      configurationFields: [cfg('Endpoint', 'Endpoint', FIELD_TYPES.Url, true, 'Base URL of the system; the connection test GETs it.')],
      secretFields: [sec('ApiKey', 'API key', false, 'Sent as Authorization: Bearer.')],
    }),
  ),
];

export function findTemplate(type: number, provider: string): IntegrationTemplate | undefined {
  return TEMPLATES.find((t) => t.type === type && t.provider.toLowerCase() === provider.toLowerCase());
}

/** Keys whose change means the stored test result no longer says anything (SPEC: IsSandbox, Environment...). */
export const CRITICAL_KEYS = ['IsSandbox', 'Environment', 'Endpoint', 'MerchantId', 'Host', 'Port', 'Secure'];

export type ConfigValue = string | number | boolean;

/** Normalises a configuration against the template: known keys only, typed values as strings. Returns errors by field. */
export function checkConfiguration(
  t: IntegrationTemplate,
  input: Record<string, unknown>,
  opts: { requireAll: boolean },
): { values: Record<string, string>; errors: Record<string, string[]> } {
  const values: Record<string, string> = {};
  const errors: Record<string, string[]> = {};
  for (const [key, raw] of Object.entries(input)) {
    const field = t.configurationFields.find((f) => f.key.toLowerCase() === key.toLowerCase());
    const label = `configuration.${key}`;
    if (!field) {
      errors[label] = [`Unknown configuration key for ${t.provider}; allowed: ${t.configurationFields.map((f) => f.key).join(', ')}.`];
      continue;
    }
    if (raw === null || raw === undefined || (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')) {
      errors[label] = ['must be a string, number or boolean.'];
      continue;
    }
    const v = String(raw).trim();
    if (field.type === FIELD_TYPES.Boolean && !['true', 'false'].includes(v.toLowerCase())) errors[label] = ['must be true or false.'];
    else if (field.type === FIELD_TYPES.Number && !/^\d{1,9}$/.test(v)) errors[label] = ['must be a whole number.'];
    else if (field.type === FIELD_TYPES.Url && !/^https?:\/\/[^\s/]+/i.test(v)) errors[label] = ['must be an http(s) URL.'];
    else if (field.required && v === '') errors[label] = ['is required.'];
    else values[field.key] = field.type === FIELD_TYPES.Boolean ? v.toLowerCase() : v;
  }
  if (opts.requireAll) {
    for (const f of t.configurationFields) {
      if (values[f.key] === undefined && !errors[`configuration.${f.key}`]) {
        if (f.defaultValue !== '') values[f.key] = f.defaultValue;
        else if (f.required) errors[`configuration.${f.key}`] = ['is required.'];
      }
    }
  }
  return { values, errors };
}

/** Checks secret keys against the template; values are never echoed in errors. */
export function checkSecrets(
  t: IntegrationTemplate,
  input: Record<string, unknown>,
  opts: { requireAll: boolean },
): { values: Record<string, string>; errors: Record<string, string[]> } {
  const values: Record<string, string> = {};
  const errors: Record<string, string[]> = {};
  for (const [key, raw] of Object.entries(input)) {
    const field = t.secretFields.find((f) => f.key.toLowerCase() === key.toLowerCase());
    const label = `secrets.${key}`;
    if (!field) errors[label] = [`Unknown secret key for ${t.provider}; allowed: ${t.secretFields.map((f) => f.key).join(', ')}.`];
    else if (typeof raw !== 'string' || raw.length === 0 || raw.length > 4096) errors[label] = ['must be a non-empty string of at most 4096 characters.'];
    else values[field.key] = raw;
  }
  if (opts.requireAll)
    for (const f of t.secretFields) if (f.required && values[f.key] === undefined && !errors[`secrets.${f.key}`]) errors[`secrets.${f.key}`] = ['is required.'];
  return { values, errors };
}

/** Whether an update needs a new connection test: secrets supplied, or a critical key changed. */
export function needsConnectionTest(before: Record<string, string>, after: Record<string, string>, secretsChanged: boolean): boolean {
  return secretsChanged || CRITICAL_KEYS.some((k) => (before[k] ?? null) !== (after[k] ?? null));
}

/** Replaces every occurrence of a secret value in a message (errors of libraries may echo input). */
export function redact(message: string, secrets: string[]): string {
  let out = message;
  for (const s of secrets) if (s.length >= 3) out = out.split(s).join('***');
  return out;
}
