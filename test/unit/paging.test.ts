import qs from 'qs';
import { AppError } from '../../src/errors';
import { dataEnvelope, genericEnvelope, itemsEnvelope, parseList, type ListSpec } from '../../src/http/paging';

const spec: ListSpec = {
  filters: {
    companyName: { prop: 'companyName', type: 'string' },
    customerNumber: { prop: 'customer.customerNumber', type: 'string' },
    balance: { prop: 'balance', type: 'number' },
    active: { prop: 'active', type: 'boolean' },
    createdAt: { prop: 'createdAt', type: 'date' },
  },
  sorts: { companyName: 'companyName', customerNumber: 'customer.customerNumber' },
  defaultSort: 'companyName',
};
const withComparisons: ListSpec = { ...spec, comparisons: true };

function errorsOf(fn: () => unknown): Record<string, string[]> {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).status).toBe(400);
    return (e as AppError).errors ?? {};
  }
  throw new Error('expected an AppError');
}

describe('parseList paging and sorting', () => {
  test('when the query is empty, then page 1, the default page size 25 and the default sort ascending', () => {
    expect(parseList({}, spec)).toEqual({ page: 1, pageSize: 25, offset: 0, where: {}, orderBy: { companyName: 'asc' } });
  });

  test('when pageNumber, pageSize and sort are given (any case), then offset and a nested orderBy follow', () => {
    const q = parseList({ PageNumber: '3', pagesize: '10', sortOn: 'CUSTOMERNUMBER', sortDirection: 'DESC' }, spec);
    expect(q).toEqual(expect.objectContaining({ page: 3, pageSize: 10, offset: 20, orderBy: { customer: { customerNumber: 'desc' } } }));
  });

  test('when pageSize is 500, then accepted; when 501, then a 400 naming pageSize', () => {
    expect(parseList({ pageSize: '500' }, spec).pageSize).toBe(500);
    expect(Object.keys(errorsOf(() => parseList({ pageSize: '501' }, spec)))).toEqual(['pageSize']);
  });

  test('when paging values are not whole numbers of at least 1, then all are named at once', () => {
    const errors = errorsOf(() => parseList({ pageNumber: '0', pageSize: 'abc', sortOn: 'nope', sortDirection: 'up' }, spec));
    expect(Object.keys(errors).sort()).toEqual(['pageNumber', 'pageSize', 'sortDirection', 'sortOn']);
  });

  test('when the spec renames the paging parameters, then the new names are read', () => {
    const q = parseList({ page: '2', size: '5' }, { ...spec, names: { page: 'page', size: 'size' } });
    expect(q).toEqual(expect.objectContaining({ page: 2, pageSize: 5, offset: 5 }));
  });
});

describe('parseList filters', () => {
  test('when filters come as a JSON string, then text operators become escaped ilike conditions', () => {
    const filters = JSON.stringify([
      { field: 'companyName', operator: 'contains', value: '50%_off' },
      { field: 'customerNumber', operator: 'startswith', value: 'C-' },
    ]);
    const q = parseList({ filters }, spec);
    expect(q.where).toEqual({ $and: [{ companyName: { $ilike: '%50\\%\\_off%' } }, { customer: { customerNumber: { $ilike: 'C-%' } } }] });
  });

  test('when filters come in qs bracket form, then they parse the same as the JSON form', () => {
    const bracket = qs.parse('filters[0][field]=companyName&filters[0][operator]=endswith&filters[0][value]=Inc&filters[1][field]=active&filters[1][operator]=equals&filters[1][value]=true');
    const json = { filters: JSON.stringify([{ field: 'companyName', operator: 'endswith', value: 'Inc' }, { field: 'active', operator: 'equals', value: 'true' }]) };
    const q = parseList(bracket as Record<string, unknown>, spec);
    expect(q.where).toEqual({ $and: [{ companyName: { $ilike: '%Inc' } }, { active: { $eq: true } }] });
    expect(parseList(json, spec).where).toEqual(q.where);
  });

  test('when every text operator is used, then each maps to its condition (negations wrap the whole field condition)', () => {
    const field = (cond: object) => ({ companyName: cond });
    const ops: Record<string, object> = {
      startswith: field({ $ilike: 'a%' }),
      endswith: field({ $ilike: '%a' }),
      contains: field({ $ilike: '%a%' }),
      notcontains: { $not: field({ $ilike: '%a%' }) },
      equals: field({ $ilike: 'a' }),
      notequals: { $not: field({ $ilike: 'a' }) },
    };
    for (const [operator, cond] of Object.entries(ops)) {
      expect(parseList({ filters: JSON.stringify([{ field: 'companyName', operator, value: 'a' }]) }, spec).where).toEqual({ $and: [cond] });
    }
  });

  test('when a field or operator is unknown, then a 400 listing each bad one', () => {
    const filters = JSON.stringify([
      { field: 'password', operator: 'equals', value: 'x' },
      { field: 'companyName', operator: 'like', value: 'x' },
    ]);
    const errors = errorsOf(() => parseList({ filters }, spec));
    expect(Object.keys(errors).sort()).toEqual(['filters[0].field', 'filters[1].operator']);
    expect(errors['filters[0].field'][0]).toContain('companyName');
  });

  test('when gt/gte/lt/lte are used without comparisons, then 400; with comparisons, then $gt/$gte/$lt/$lte on typed values', () => {
    const filters = JSON.stringify([
      { field: 'balance', operator: 'gt', value: '10' },
      { field: 'createdAt', operator: 'gte', value: '2024-01-01T00:00:00Z' },
      { field: 'balance', operator: 'lt', value: 100 },
      { field: 'balance', operator: 'lte', value: '100.5' },
    ]);
    expect(Object.keys(errorsOf(() => parseList({ filters }, spec))).sort()).toEqual(['filters[0].operator', 'filters[1].operator', 'filters[2].operator', 'filters[3].operator']);
    expect(parseList({ filters }, withComparisons).where).toEqual({
      $and: [{ balance: { $gt: 10 } }, { createdAt: { $gte: new Date('2024-01-01T00:00:00Z') } }, { balance: { $lt: 100 } }, { balance: { $lte: 100.5 } }],
    });
  });

  test('when values do not fit the field type or a text operator targets a number, then 400 naming them', () => {
    const filters = JSON.stringify([
      { field: 'balance', operator: 'gt', value: 'lots' },
      { field: 'active', operator: 'equals', value: 'maybe' },
      { field: 'createdAt', operator: 'lt', value: 'yesterday' },
      { field: 'balance', operator: 'contains', value: '1' },
    ]);
    expect(Object.keys(errorsOf(() => parseList({ filters }, withComparisons))).sort()).toEqual(['filters[0].value', 'filters[1].value', 'filters[2].value', 'filters[3].operator']);
  });

  test('when filters is not JSON, not an array, or holds a non-object, then 400', () => {
    expect(Object.keys(errorsOf(() => parseList({ filters: '[{bad' }, spec)))).toEqual(['filters']);
    expect(Object.keys(errorsOf(() => parseList({ filters: '"text"' }, spec)))).toEqual(['filters']);
    expect(Object.keys(errorsOf(() => parseList({ filters: '[5]' }, spec)))).toEqual(['filters[0]']);
  });

  test('when filters is empty, then no where clause', () => {
    expect(parseList({ filters: '' }, spec).where).toEqual({});
    expect(parseList({ filters: '[]' }, spec).where).toEqual({});
  });
});

describe('envelopes', () => {
  const q = parseList({ pageNumber: '2', pageSize: '10' }, spec);
  test('when rows are enveloped, then each SPEC shape carries its exact field names', () => {
    expect(dataEnvelope([1], 21, q)).toEqual({ data: [1], totalRecords: 21, currentPage: 2, totalPages: 3 });
    expect(dataEnvelope([1], 21, q, true)).toEqual({ data: [1], totalRecords: 21, currentPage: 2, totalPages: 3, pageSize: 10 });
    expect(itemsEnvelope([1], 21, q)).toEqual({ items: [1], totalCount: 21, pageNumber: 2, pageSize: 10, totalPages: 3 });
    expect(genericEnvelope([1], 21, q)).toEqual({ Data: [1], TotalCount: 21, PageNumber: 2, PageSize: 10 });
    expect(dataEnvelope([], 0, q).totalPages).toBe(0);
  });
});
