/**
 * The ORM side of the customer upsert rules (src/domain/customers/upsert.ts): reads and writes
 * one organization's Customer rows with their addresses and contacts, and the field view the
 * rules compare. The import applier has its own set-based copy in src/services/imports/customers.ts.
 * A customer created (or renumbered) takes the unlinked orders and invoices of its number (./links.ts).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AddressInput, ContactInput, CustomerFields } from '../../domain/customers/rules.js';
import type { CustomerStore } from '../../domain/customers/upsert.js';
import { Customer, CustomerAddress, CustomerContact } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { findPriceTier } from '../catalog/pricing.js';
import { adoptUnlinkedHistory } from './links.js';

/** Drops keys whose value is undefined, so "omitted" and "included" stay distinguishable. */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

const addressView = (a: Partial<CustomerAddress>): AddressInput & Record<string, unknown> => ({
  externalId: a.externalId ?? null,
  line1: a.line1 ?? null,
  line2: a.line2 ?? null,
  city: a.city ?? null,
  state: a.state ?? null,
  postalCode: a.postalCode ?? null,
  country: a.country ?? null,
  addressType: a.addressType as AddressInput['addressType'],
  phone: a.phone ?? null,
  isPrimary: a.isPrimary,
});

const contactView = (c: Partial<CustomerContact>): ContactInput & Record<string, unknown> => ({
  externalId: c.externalId ?? null,
  title: c.title ?? null,
  firstName: c.firstName ?? null,
  lastName: c.lastName ?? null,
  email: c.email ?? null,
  phone: c.phone ?? null,
  fax: c.fax ?? null,
  isPrimary: c.isPrimary,
  contactType: c.contactType ?? null,
});

const byPosition = <T extends { position: number }>(items: Iterable<T>) => [...items].sort((a, b) => a.position - b.position);

/** The customer's fields as the upsert rules see them (addresses and contacts in their stored order). */
export function fieldsOf(c: Customer): CustomerFields {
  return {
    customerNumber: c.customerNumber,
    externalId: c.externalId ?? null,
    companyName: c.companyName,
    companyEmail: c.companyEmail,
    companyPhone: c.companyPhone ?? null,
    companyFax: c.companyFax ?? null,
    pricing: c.pricing,
    active: c.active,
    repNumber: c.repNumber ?? null,
    terms: c.terms ?? null,
    addresses: byPosition(c.addresses.getItems()).map(addressView),
    contacts: byPosition(c.contacts.getItems()).map(contactView),
    customerAttributes: c.customerAttributes ?? {},
  };
}

const normalizeAddress = (a: AddressInput) => ({ ...addressView({}), ...defined(a), isPrimary: a.isPrimary ?? false });
const normalizeContact = (c: ContactInput) => ({ ...contactView({}), ...defined(c), isPrimary: c.isPrimary ?? false });

/** The ORM side of the customer upsert logic, for one organization. */
export function customerStore(em: EntityManager, orgId: string): CustomerStore<Customer> {
  const populate = ['addresses', 'contacts'] as const;
  const setChildren = (c: Customer, f: CustomerFields, current: CustomerFields | null) => {
    const addresses = f.addresses.map(normalizeAddress);
    if (!current || JSON.stringify(current.addresses) !== JSON.stringify(addresses))
      c.addresses.set(addresses.map((a, position) => em.create(CustomerAddress, { ...a, customer: c, position })));
    const contacts = f.contacts.map(normalizeContact);
    if (!current || JSON.stringify(current.contacts) !== JSON.stringify(contacts))
      c.contacts.set(contacts.map((x, position) => em.create(CustomerContact, { ...x, customer: c, position })));
  };
  const scalars = (f: CustomerFields) => ({
    customerNumber: f.customerNumber,
    externalId: f.externalId,
    companyName: f.companyName,
    companyEmail: f.companyEmail,
    companyPhone: f.companyPhone,
    companyFax: f.companyFax,
    pricing: f.pricing,
    active: f.active,
    repNumber: f.repNumber,
    terms: f.terms,
    customerAttributes: f.customerAttributes,
  });
  const flush = async () => {
    try {
      await em.flush();
    } catch (e) {
      if (isUniqueViolation(e, 'customer_org_number_unique')) throw AppError.conflict('A customer with this customerNumber already exists.');
      if (isUniqueViolation(e, 'customer_org_external_id_unique')) throw AppError.conflict('Another customer already has this externalId.');
      throw e;
    }
  };
  return {
    findByExternalId: (externalId) => em.findOne(Customer, { organization: orgId, externalId }, { populate }),
    findByNumber: (customerNumber) => em.findOne(Customer, { organization: orgId, customerNumber }, { populate }),
    async tierName(name) {
      const tier = await findPriceTier(em, orgId, name);
      return tier?.name ?? null;
    },
    fields: fieldsOf,
    async create(f) {
      const c = em.create(Customer, { organization: orgId, ...scalars(f) });
      setChildren(c, f, null);
      await flush();
      await adoptUnlinkedHistory(em, orgId, c);
      return c;
    },
    async update(c, f) {
      const current = fieldsOf(c);
      em.assign(c, scalars(f));
      setChildren(c, f, current);
      await flush();
      if (current.customerNumber !== c.customerNumber) await adoptUnlinkedHistory(em, orgId, c);
      return c;
    },
  };
}
