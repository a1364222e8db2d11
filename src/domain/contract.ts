/**
 * Building blocks of response schemas (yup, like the request schemas). Every field is
 * required unless wrapped in `opt()`, and objects admit no undocumented property unless built
 * with `open()`, so /openapi.json states exactly what the serialisers write and the
 * response-validation test (test/support/helpers.ts) catches any drift. `component('Product', schema)`
 * makes a schema a shared components/schemas entry referenced with $ref.
 *
 * Views type their result with `Out<typeof schema>` where practical, so the compiler also
 * holds the serialiser to the schema.
 */
import * as yup from 'yup';
import type { AnySchema, InferType } from 'yup';

export type Out<S extends AnySchema> = InferType<S>;

type Shape = Record<string, AnySchema>;

const fmt = (format: string) => ({ openapi: { format } });

/** yup's meta() merges into the meta object a clone shares with its source; this gives the copy its own. */
export function withMeta<S extends AnySchema>(s: S, meta: Record<string, unknown>): S {
  const next = s.clone() as S & { spec: { meta?: Record<string, unknown> } };
  next.spec.meta = { ...(next.spec.meta ?? {}), ...meta };
  return next;
}

export const str = () => yup.string().defined();
export const strN = () => yup.string().nullable().defined();
export const int = () => yup.number().integer().defined();
export const intN = () => yup.number().integer().nullable().defined();
export const num = () => yup.number().defined();
export const numN = () => yup.number().nullable().defined();
export const bool = () => yup.boolean().defined();
export const boolN = () => yup.boolean().nullable().defined();
/** An ISO 8601 instant, e.g. 2026-01-31T12:00:00.000Z. */
export const dateTime = () => yup.string().defined().meta(fmt('date-time'));
export const dateTimeN = () => yup.string().nullable().defined().meta(fmt('date-time'));
/** A calendar date, e.g. 2026-01-31. */
export const date = () => yup.string().defined().meta(fmt('date'));
export const dateN = () => yup.string().nullable().defined().meta(fmt('date'));
export const uuid = () => yup.string().defined().meta(fmt('uuid'));
export const uuidN = () => yup.string().nullable().defined().meta(fmt('uuid'));
export const uri = () => yup.string().defined().meta(fmt('uri'));
export const uriN = () => yup.string().nullable().defined().meta(fmt('uri'));
export const oneOf = <T extends string>(values: readonly T[]) => yup.string<T>().oneOf([...values]).defined();
export const oneOfN = <T extends string>(values: readonly T[]) => yup.string<T>().oneOf([...values]).nullable().defined();
export const arr = <S extends AnySchema>(item: S) => yup.array(item).defined();
export const obj = <S extends Shape>(shape: S) => yup.object(shape).defined();
export const objN = <S extends Shape>(shape: S) => yup.object(shape).nullable().defined();
/** An object whose keys are data (attributes, counts by key): any property, values of `values` (anything when absent). */
export const open = (values?: AnySchema) => yup.mixed<Record<string, unknown>>().defined().meta({ openapi: { type: 'object' }, additionalProperties: values ?? true });
/** Any JSON value (a stored free-form document). */
export const any = () => yup.mixed().defined();
/** A property that may be absent. */
export function opt<S extends AnySchema>(s: S): ReturnType<S['optional']> {
  // yup types optional() per schema class; for a generic schema it is `any`, the caller's S says what it is.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-return
  return s.optional();
}
/** A shared components/schemas entry. */
export const component = <S extends AnySchema>(name: string, s: S): S => withMeta(s, { component: name });
/** A description shown beside the property. */
export const doc = <S extends AnySchema>(s: S, description: string, example?: unknown): S => withMeta(s, { description, ...(example === undefined ? {} : { example }) });
/** An object that may carry properties beyond the documented ones (stored caller input). */
export const extensible = <S extends AnySchema>(s: S): S => withMeta(s, { additionalProperties: true });
/** A reference to a component by name (recursive shapes such as the category tree). */
export const ref = (name: string) => yup.mixed().defined().meta({ openapi: { $ref: `#/components/schemas/${name}` } });
