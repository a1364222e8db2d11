/** Pure customer rules: primaries, merging partial input, and choosing create/update/conflict for an upsert. */
import type { FieldErrors } from '../../errors.js';

export type AddressType = 'Billing' | 'Shipping';

export interface AddressInput {
  externalId?: string | null;
  line1?: string | null;
  line2?: string | null;
  city?: string | null;
  state?: string | null;
  postalCode?: string | null;
  country?: string | null;
  addressType: AddressType;
  phone?: string | null;
  isPrimary?: boolean;
}

export interface ContactInput {
  externalId?: string | null;
  title?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
  phone?: string | null;
  fax?: string | null;
  isPrimary?: boolean;
  contactType?: string | null;
}

/** What a caller may send; every field optional (partial update), upsert requires some of them. */
export interface CustomerInput {
  customerNumber?: string;
  externalId?: string | null;
  companyName?: string;
  companyEmail?: string;
  companyPhone?: string | null;
  companyFax?: string | null;
  pricing?: string;
  active?: boolean;
  repNumber?: string | null;
  terms?: string | null;
  addresses?: AddressInput[];
  contacts?: ContactInput[];
  customerAttributes?: Record<string, string> | null;
}

/** The full state of a customer as stored. */
export interface CustomerFields {
  customerNumber: string;
  externalId: string | null;
  companyName: string;
  companyEmail: string;
  companyPhone: string | null;
  companyFax: string | null;
  pricing: string;
  active: boolean;
  repNumber: string | null;
  terms: string | null;
  addresses: AddressInput[];
  contacts: ContactInput[];
  customerAttributes: Record<string, string>;
}

/** At most one primary address per addressType and one primary contact; names every offending entry. */
export function primaryErrors(addresses: AddressInput[] | undefined, contacts: ContactInput[] | undefined): FieldErrors {
  const errors: FieldErrors = {};
  const seen = new Map<string, number>();
  (addresses ?? []).forEach((a, i) => {
    if (!a.isPrimary) return;
    const type = String(a.addressType).toLowerCase();
    if (seen.has(type)) errors[`addresses[${i}].isPrimary`] = [`Only one ${a.addressType} address can be primary (addresses[${seen.get(type)}] already is).`];
    else seen.set(type, i);
  });
  let primaryContact = -1;
  (contacts ?? []).forEach((c, i) => {
    if (!c.isPrimary) return;
    if (primaryContact >= 0) errors[`contacts[${i}].isPrimary`] = [`Only one contact can be primary (contacts[${primaryContact}] already is).`];
    else primaryContact = i;
  });
  return errors;
}

const REQUIRED_ON_CREATE = ['customerNumber', 'companyName', 'companyEmail', 'pricing'] as const;

/** Fields a create needs that the input lacks. */
export function missingForCreate(input: CustomerInput): FieldErrors {
  const errors: FieldErrors = {};
  for (const k of REQUIRED_ON_CREATE) if (input[k] === undefined || input[k] === null || input[k] === '') errors[k] = [`${k} is a required field`];
  return errors;
}

/** Applies input over current (or defaults): included fields overwrite, omitted ones keep their value. */
export function mergeCustomer(current: CustomerFields | null, input: CustomerInput): CustomerFields {
  const base: CustomerFields = current ?? {
    customerNumber: '',
    externalId: null,
    companyName: '',
    companyEmail: '',
    companyPhone: null,
    companyFax: null,
    pricing: '',
    active: true,
    repNumber: null,
    terms: null,
    addresses: [],
    contacts: [],
    customerAttributes: {},
  };
  const out: CustomerFields = { ...base };
  const set = <K extends keyof CustomerFields>(k: K, v: CustomerFields[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  set('customerNumber', input.customerNumber);
  set('externalId', input.externalId);
  set('companyName', input.companyName);
  set('companyEmail', input.companyEmail);
  set('companyPhone', input.companyPhone);
  set('companyFax', input.companyFax);
  set('pricing', input.pricing);
  if (input.active !== undefined && input.active !== null) out.active = input.active;
  set('repNumber', input.repNumber);
  set('terms', input.terms);
  if (input.addresses !== undefined) out.addresses = input.addresses ?? [];
  if (input.contacts !== undefined) out.contacts = input.contacts ?? [];
  if (input.customerAttributes !== undefined) out.customerAttributes = input.customerAttributes ?? {};
  return out;
}

export interface Existing {
  id: string;
  customerNumber: string;
  externalId?: string | null;
}

export type UpsertPlan = { kind: 'create' } | { kind: 'update'; id: string } | { kind: 'conflict'; field: 'customerNumber'; message: string };

/**
 * Which record an upsert touches. The externalId wins when it matches; otherwise the
 * customerNumber does, unless that customer carries a different externalId (then the
 * caller would be creating a second customer with the same number: conflict).
 */
export function planUpsert(input: { customerNumber: string; externalId?: string | null }, byExternalId: Existing | null, byNumber: Existing | null): UpsertPlan {
  const dup = (n: string) => ({ kind: 'conflict' as const, field: 'customerNumber' as const, message: `A customer with customerNumber "${n}" already exists.` });
  if (input.externalId && byExternalId) {
    if (byNumber && byNumber.id !== byExternalId.id) return dup(input.customerNumber);
    return { kind: 'update', id: byExternalId.id };
  }
  if (byNumber) {
    if (input.externalId && byNumber.externalId && byNumber.externalId !== input.externalId) return dup(input.customerNumber);
    return { kind: 'update', id: byNumber.id };
  }
  return { kind: 'create' };
}
