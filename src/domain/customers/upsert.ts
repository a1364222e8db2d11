/**
 * Customer upsert and partial update over a store interface: the same logic serves
 * PUT /api/customers, PUT /api/customers/{customerNumber} and bulk imports (call once per
 * row and catch the AppError per row). No ORM here; src/api/customers.ts supplies the store.
 */
import { AppError, type FieldErrors } from '../../errors.js';
import { mergeCustomer, missingForCreate, planUpsert, primaryErrors, type CustomerFields, type CustomerInput, type Existing } from './rules.js';

export interface CustomerStore<C extends Existing> {
  findByExternalId(externalId: string): Promise<C | null>;
  findByNumber(customerNumber: string): Promise<C | null>;
  /** Canonical name of the organization's price tier matching `name` (case-insensitively), or null. */
  tierName(name: string): Promise<string | null>;
  fields(existing: C): CustomerFields;
  create(fields: CustomerFields): Promise<C>;
  update(existing: C, fields: CustomerFields): Promise<C>;
}

export interface UpsertOptions<C> {
  /** Throws when the caller may not touch this existing customer (e.g. a sales rep's other customers). */
  guard?: (existing: C, current: CustomerFields) => void;
  /** Throws when the caller may not write these final fields over `current` (null: a new customer), e.g. another rep's number. */
  guardFields?: (fields: CustomerFields, current: CustomerFields | null) => void;
}

async function checkFields<C extends Existing>(store: CustomerStore<C>, input: CustomerInput, base: FieldErrors): Promise<CustomerInput> {
  const errors: FieldErrors = { ...base, ...primaryErrors(input.addresses, input.contacts) };
  let pricing = input.pricing;
  if (pricing !== undefined && !errors.pricing) {
    const tier = await store.tierName(pricing);
    if (!tier) errors.pricing = [`pricing must name a price tier of the organization; "${pricing}" is not one.`];
    else pricing = tier;
  }
  if (Object.keys(errors).length) throw AppError.validation(errors);
  return pricing === undefined ? input : { ...input, pricing };
}

/** Creates or updates by externalId or customerNumber; never creates a duplicate. */
export async function upsertCustomer<C extends Existing>(store: CustomerStore<C>, input: CustomerInput, opts: UpsertOptions<C> = {}): Promise<{ customer: C; created: boolean }> {
  const byExternalId = input.externalId ? await store.findByExternalId(input.externalId) : null;
  const byNumber = input.customerNumber ? await store.findByNumber(input.customerNumber) : null;
  // A key that names a customer the caller may not touch is refused before anything else (no 409 that tells it exists).
  for (const match of [byExternalId, byNumber]) if (match) opts.guard?.(match, store.fields(match));
  const plan = planUpsert({ customerNumber: input.customerNumber ?? '', externalId: input.externalId }, byExternalId, byNumber);
  if (plan.kind === 'conflict') throw AppError.conflict(plan.message);
  const existing = plan.kind === 'update' ? (byExternalId?.id === plan.id ? byExternalId : byNumber) : null;
  const checked = await checkFields(store, input, existing ? {} : missingForCreate(input));
  if (existing) {
    const current = store.fields(existing);
    opts.guard?.(existing, current);
    const fields = mergeCustomer(current, checked);
    opts.guardFields?.(fields, current);
    return { customer: await store.update(existing, fields), created: false };
  }
  const fields = mergeCustomer(null, checked);
  opts.guardFields?.(fields, null);
  return { customer: await store.create(fields), created: true };
}

/** Partial update of a known customer: included fields overwrite, omitted ones keep their values. */
export async function updateCustomer<C extends Existing>(store: CustomerStore<C>, existing: C, input: CustomerInput, opts: UpsertOptions<C> = {}): Promise<C> {
  const current = store.fields(existing);
  opts.guard?.(existing, current);
  const blank: FieldErrors = {};
  for (const k of ['customerNumber', 'companyName', 'companyEmail', 'pricing'] as const) if (input[k] === null || input[k] === '') blank[k] = [`${k} cannot be empty.`];
  const checked = await checkFields(store, input, blank);
  if (checked.customerNumber !== undefined && checked.customerNumber !== existing.customerNumber) {
    const other = await store.findByNumber(checked.customerNumber);
    if (other && other.id !== existing.id) throw AppError.conflict(`A customer with customerNumber "${checked.customerNumber}" already exists.`);
  }
  if (checked.externalId && checked.externalId !== existing.externalId) {
    const other = await store.findByExternalId(checked.externalId);
    if (other && other.id !== existing.id) throw AppError.conflict(`Another customer already has externalId "${checked.externalId}".`);
  }
  const fields = mergeCustomer(current, checked);
  opts.guardFields?.(fields, current);
  return store.update(existing, fields);
}
