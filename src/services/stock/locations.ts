/**
 * Stock locations of an organization (Admin; docs/fulfillment.md "Stock"): code unique per
 * organization, a priority (lower serves first), exactly one default once any exists (the first
 * location created is the default; making another the default moves it, in one transaction).
 * A location with stock history is deactivated, not deleted.
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { StockLocation } from '../../entities/index.js';
import { AppError, isUniqueViolation } from '../../errors.js';
import { dataEnvelope, parseList, type ListSpec } from '../../http/paging.js';
import { UUID_RE } from '../../domain/ids.js';
import { boundRows } from '../../db/orm-sql.js';

export interface LocationInput {
  name?: string;
  code?: string;
  priority?: number;
  isDefault?: boolean;
  active?: boolean;
  address?: Record<string, unknown> | null;
}

export interface LocationView {
  locationId: string;
  organizationId: string;
  name: string;
  code: string;
  priority: number;
  isDefault: boolean;
  active: boolean;
  address: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}

export const locationView = (l: StockLocation): LocationView => ({
  locationId: l.id,
  organizationId: l.organizationId,
  name: l.name,
  code: l.code,
  priority: l.priority,
  isDefault: l.isDefault,
  active: l.active,
  address: l.address ?? null,
  createdAt: new Date(l.createdAt).toISOString(),
  updatedAt: new Date(l.updatedAt).toISOString(),
});

export const locationListSpec: ListSpec = {
  filters: { code: { prop: 'code', type: 'string' }, name: { prop: 'name', type: 'string' }, active: { prop: 'active', type: 'boolean' }, isDefault: { prop: 'isDefault', type: 'boolean' } },
  sorts: { Priority: 'priority', Code: 'code', Name: 'name' },
  defaultSort: 'Priority',
  defaultPageSize: 50,
};

/** GET /api/stock-locations: paged, by priority (then code) unless sorted otherwise. */
export async function listLocations(em: EntityManager, orgId: string, query: Record<string, unknown>) {
  const q = parseList(query, locationListSpec);
  const [rows, total] = await em.findAndCount(
    StockLocation,
    { $and: [{ organizationId: orgId }, q.where] } as never,
    { orderBy: [q.orderBy, { code: 'asc' }] as never, limit: q.pageSize, offset: q.offset },
  );
  return dataEnvelope(rows.map(locationView), total, q);
}

async function findLocation(em: EntityManager, orgId: string, id: string): Promise<StockLocation> {
  const l = UUID_RE.test(id) ? await em.findOne(StockLocation, { organizationId: orgId, id }) : null;
  if (!l) throw AppError.notFound('Stock location');
  return l;
}

export const readLocation = async (em: EntityManager, orgId: string, id: string) => locationView(await findLocation(em, orgId, id));

const codeTaken = (e: unknown) => (isUniqueViolation(e, 'stock_location_org_code_unique') ? AppError.conflict('Another stock location already has this code.') : e);

/** Makes `id` the organization's one default (the others lose it) in the caller's transaction. */
async function moveDefault(tem: EntityManager, orgId: string, id: string): Promise<void> {
  await boundRows(tem, 'update stock_location set is_default = false, updated_at = now() where organization_id = $1 and is_default and id <> $2', [orgId, id]);
}

/** POST /api/stock-locations: the organization's first location is its default whatever the body says. */
export async function createLocation(em: EntityManager, orgId: string, body: LocationInput & { name: string; code: string }): Promise<LocationView> {
  try {
    const l = await em.transactional(async (tem) => {
      // The organization's locations are created one at a time (the default is decided under this lock).
      await boundRows(tem, 'select 1 from organization where id = $1 for no key update', [orgId]);
      const [{ n }] = await boundRows<{ n: number }>(tem, 'select count(*)::int as n from stock_location where organization_id = $1', [orgId]);
      const isDefault = n === 0 || !!body.isDefault;
      const id = randomUUID();
      if (isDefault && n > 0) await moveDefault(tem, orgId, id);
      const now = new Date();
      const row = tem.create(StockLocation, {
        organizationId: orgId,
        id,
        name: body.name,
        code: body.code,
        priority: body.priority ?? 100,
        isDefault,
        active: body.active ?? true,
        address: body.address ?? null,
        createdAt: now,
        updatedAt: now,
      });
      await tem.flush();
      return row;
    });
    return locationView(l);
  } catch (e) {
    throw codeTaken(e);
  }
}

/** PUT /api/stock-locations/{locationId}: the fields given; isDefault true moves the default here (false on the default is refused: make another the default). */
export async function updateLocation(em: EntityManager, orgId: string, id: string, body: LocationInput): Promise<LocationView> {
  try {
    const l = await em.transactional(async (tem) => {
      const l = await findLocation(tem, orgId, id);
      if (body.isDefault === false && l.isDefault) throw AppError.field('isDefault', 'The organization needs a default location: make another location the default instead.');
      if (body.active === false && (body.isDefault || l.isDefault)) throw AppError.field('active', 'The default location cannot be deactivated.');
      if (body.isDefault && !l.isDefault) {
        await moveDefault(tem, orgId, l.id);
        l.isDefault = true;
      }
      if (body.name !== undefined) l.name = body.name;
      if (body.code !== undefined) l.code = body.code;
      if (body.priority !== undefined) l.priority = body.priority;
      if (body.active !== undefined) l.active = body.active;
      if (body.address !== undefined) l.address = body.address;
      l.updatedAt = new Date();
      await tem.flush();
      return l;
    });
    return locationView(l);
  } catch (e) {
    throw codeTaken(e);
  }
}

/** DELETE /api/stock-locations/{locationId}: only a location that never held stock and is not the default (409 otherwise: deactivate it). */
export async function deleteLocation(em: EntityManager, orgId: string, id: string): Promise<void> {
  await em.transactional(async (tem) => {
    const l = await findLocation(tem, orgId, id);
    if (l.isDefault) throw AppError.conflict('The default location cannot be deleted: make another location the default first.');
    const [used] = await boundRows(tem, 'select 1 from stock_level where organization_id = $1 and location_id = $2 limit 1', [orgId, l.id]);
    if (used) throw AppError.conflict('The location has stock history; deactivate it (PUT with active: false) instead.');
    await boundRows(tem, 'delete from stock_location where organization_id = $1 and id = $2', [orgId, l.id]);
  });
}
