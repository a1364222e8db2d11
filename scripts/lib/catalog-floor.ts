/**
 * The catalog benchmark's floor (scripts/bench/catalog.ts): a bare node:http + pg server answering
 * the same JSON as the API's product reads with the best SQL and nothing else (no auth, no
 * framework, no validation): one statement for a product with its prices and images aggregated,
 * a count plus one page statement for a list; a customer, order, invoice or cart with its children
 * aggregated in one statement (answered as the stored row, not reshaped). Run as its own process so it does not share the
 * benchmark client's event loop: `node dist/scripts/lib/catalog-floor.js <databaseUrl> <orgId> <port>`;
 * prints `listening <port>` when ready.
 */
import http from 'node:http';
import pg from 'pg';

const [databaseUrl, orgId, portArg] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: databaseUrl, max: 8 });

const COLUMNS = `p.id, p.organization_id, p.sku, p.name, p.description, c.name as category_name, p.quantity_on_hand, p.minimum_order_quantity,
  p.quantity_increment, p.weight, p.weight_unit, p.dimensions, p.dimensions_unit, p.upc, p.active, p.product_attributes, p.external_id,
  p.created_at, p.updated_at,
  coalesce((select json_agg(json_build_object('tier', pp.tier, 'price', pp.price, 'atQuantity', pp.at_quantity) order by pp.tier, pp.at_quantity)
              from product_price pp where pp.product_id = p.id), '[]') as prices,
  coalesce((select json_agg(json_build_object('id', i.id, 'name', i.name) order by i.created_at)
              from image i where i.organization_id = p.organization_id and i.sku = p.sku and i.active), '[]') as images`;
const BY_SKU = `select ${COLUMNS} from product p left join category c on c.organization_id = p.organization_id and c.id = p.category_id where p.organization_id = $1 and p.sku = $2`;
const COUNT = 'select count(*)::int as n from product where organization_id = $1';
// The page's ids first (an index-only walk to the offset), then the columns and aggregates of those rows only:
// with the aggregates in the select list of the offset query, every skipped row was aggregated too.
const PAGE = `with ids as (select id, sku from product where organization_id = $1 order by sku limit $2 offset $3)
  select ${COLUMNS} from ids join product p on p.organization_id = $1 and p.id = ids.id
  left join category c on c.organization_id = p.organization_id and c.id = p.category_id order by ids.sku`;
/** Single resources (the benchmark's "single reads"): the row with its children aggregated, one statement each. */
const SINGLE: Record<string, string> = {
  customers: `select c.*, coalesce((select json_agg(a order by a.position) from customer_address a where a.customer_id = c.id), '[]') as addresses,
                 coalesce((select json_agg(k order by k.position) from customer_contact k where k.customer_id = c.id), '[]') as contacts
                from customer c where c.organization_id = $1 and c.customer_number = $2`,
  orders: `select o.*, coalesce((select json_agg(i order by i.position) from order_item i where i.organization_id = o.organization_id and i.order_id = o.id), '[]') as items
             from sales_order o where o.organization_id = $1 and o.id = $2::uuid`,
  invoices: `select i.*, coalesce((select json_agg(p order by p.created_at) from invoice_payment p where p.organization_id = i.organization_id and p.invoice_id = i.id), '[]') as payments
               from invoice i where i.organization_id = $1 and i.id = $2::uuid and i.active`,
  carts: `select k.*, coalesce((select json_agg(i order by i.created_at) from cart_item i where i.organization_id = k.organization_id and i.cart_id = k.id), '[]') as items
            from cart k where k.organization_id = $1 and k.id = $2::uuid`,
};
const PAGE_AFTER = `select ${COLUMNS} from product p left join category c on c.organization_id = p.organization_id and c.id = p.category_id where p.organization_id = $1 and p.sku > $3 order by p.sku limit $2`;

type Row = Record<string, any>;
const view = (r: Row) => {
  const first = (r.prices as Row[])[0];
  return {
    productId: r.id,
    organizationId: r.organization_id,
    sku: r.sku,
    name: r.name,
    description: r.description,
    category: r.category_name,
    price: first ? Number(first.price) : null,
    priceFormatted: first ? `$${Number(first.price).toFixed(2)}` : null,
    currencyCode: first ? 'USD' : null,
    prices: (r.prices as Row[]).map((p) => ({ tier: p.tier, price: Number(p.price), priceFormatted: `$${Number(p.price).toFixed(2)}`, atQuantity: p.atQuantity })),
    quantityOnHand: r.quantity_on_hand,
    minimumOrderQuantity: r.minimum_order_quantity,
    quantityIncrement: r.quantity_increment,
    weight: r.weight === null ? null : Number(r.weight),
    weightUnit: r.weight_unit,
    dimensions: r.dimensions,
    dimensionsUnit: r.dimensions_unit,
    upc: r.upc,
    active: r.active,
    images: r.images,
    productAttributes: r.product_attributes ?? {},
    externalId: r.external_id,
    createdAt: (r.created_at as Date).toISOString(),
    updatedAt: (r.updated_at as Date).toISOString(),
  };
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://floor');
  const send = (status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const fail = (e: unknown) => send(500, { error: String(e) });
  // The organization: the x-org header (the benchmark measures two tenants), else the one given at start.
  const org = (req.headers['x-org'] as string | undefined) ?? orgId;
  const m = /^\/api\/products\/([^/]+)$/.exec(url.pathname);
  if (m) {
    pool
      .query({ name: 'by_sku', text: BY_SKU, values: [org, decodeURIComponent(m[1])] })
      .then((r) => (r.rows[0] ? send(200, view(r.rows[0])) : send(404, { title: 'Not found' })), fail);
    return;
  }
  const single = /^\/api\/(customers|orders|invoices|carts)\/([^/]+)$/.exec(url.pathname);
  if (single) {
    pool
      .query({ name: `single_${single[1]}`, text: SINGLE[single[1]], values: [org, decodeURIComponent(single[2])] })
      .then((r) => (r.rows[0] ? send(200, r.rows[0]) : send(404, { title: 'Not found' })), fail);
    return;
  }
  if (url.pathname === '/api/products') {
    const size = Number(url.searchParams.get('pageSize') ?? 25);
    const page = Number(url.searchParams.get('pageNumber') ?? 1);
    const after = url.searchParams.get('after');
    Promise.all([
      pool.query({ name: 'count', text: COUNT, values: [org] }),
      after ? pool.query({ name: 'page_after', text: PAGE_AFTER, values: [org, size, after] }) : pool.query({ name: 'page', text: PAGE, values: [org, size, (page - 1) * size] }),
    ]).then(([c, p]) => {
      const total = c.rows[0].n as number;
      send(200, { data: p.rows.map(view), totalRecords: total, currentPage: page, totalPages: Math.ceil(total / size) });
    }, fail);
    return;
  }
  send(404, {});
});

server.listen(Number(portArg), '127.0.0.1', () => console.log(`listening ${(server.address() as { port: number }).port}`));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});
