/**
 * Category endpoints: the tree, the children of a named category, and the Admin upsert.
 * The use cases are in src/services/catalog/categories.ts.
 */
import * as yup from 'yup';
import { created, defineRoute, json, ok } from '../http/route.js';
import * as out from '../domain/contract.js';

const CATEGORY = out.component(
  'Category',
  out.obj({
    id: out.uuid(),
    organizationId: out.uuid(),
    name: out.str(),
    parentId: out.uuidN(),
    active: out.bool(),
    imageUrl: out.strN(),
    breadcrumb: out.doc(out.str(), 'Names from the root, e.g. Tools > Hand tools'),
    subCategories: out.arr(out.ref('Category')),
  }),
);
import { categoryChildren, categoryTree, upsertCategory } from '../services/catalog/categories.js';

const categoryInput = yup.object({
  name: yup.string().trim().min(1).max(255).required(),
  parentName: yup.string().trim().max(255).nullable(),
  active: yup.boolean().default(true),
});

export const categoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/categories',
    operationId: 'listCategories',
    summary: 'The category tree: root categories with nested subCategories',
    tag: 'Categories',
    auth: ['Admin', 'Customer', 'SalesRep'],
    responses: { 200: json(out.obj({ categories: out.arr(CATEGORY) }), 'Root categories with nested subCategories'), 401: 'Unauthenticated' },
    async handler({ em, orgId, auth }) {
      return ok({ categories: await categoryTree(em, orgId, auth) });
    },
  }),

  defineRoute({
    method: 'get',
    path: '/api/categories/:category',
    operationId: 'getCategory',
    summary: 'Direct children of the category named in the path (case-insensitive)',
    tag: 'Categories',
    auth: ['Admin', 'Customer', 'SalesRep'],
    responses: { 200: json(out.arr(CATEGORY), 'The sub-categories of the category (with theirs)'), 401: 'Unauthenticated', 404: 'No such category' },
    async handler({ em, orgId, auth, params }) {
      return ok(await categoryChildren(em, orgId, auth, params.category));
    },
  }),

  defineRoute({
    method: 'put',
    path: '/api/categories',
    operationId: 'upsertCategory',
    summary: 'Create or update a category by name (case-insensitive) with its parent and active flag',
    tag: 'Categories',
    auth: ['Admin'],
    body: categoryInput,
    responses: { 200: json(CATEGORY, 'The updated category'), 201: json(CATEGORY, 'The created category'), 400: 'Missing name, unknown parentName, or a cycle', 401: 'Unauthenticated', 403: 'Not Admin' },
    async handler({ em, orgId, body }) {
      const res = await upsertCategory(em, orgId, body);
      return res.created ? created(res.category, '/api/categories') : ok(res.category);
    },
  }),
];
