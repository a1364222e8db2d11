/** yup validation that reports every failing field at once as an AppError (400). */
import { ValidationError, type AnyObject, type AnySchema, type ObjectSchema, type SchemaDescription, type SchemaFieldDescription } from 'yup';
import { AppError, type FieldErrors } from '../errors.js';
import { boundMessage, MAX_REPORTED_ERRORS } from './input-guard.js';

/** PostgreSQL `integer`: the bound of an integer field whose schema sets none. */
export const INT32_MAX = 2_147_483_647;
/** Bound of a non-integer number whose schema sets none (money columns are numeric(19,4)). */
export const DECIMAL_MAX = 1_000_000_000_000;

/** Field errors of a yup error: field name and rule, never the rejected value, and a bounded count. */
function toFieldErrors(err: ValidationError): FieldErrors {
  const out: FieldErrors = {};
  // Shallowest paths first (a stable sort): "invoices has more than 1000 items" is reported before the items' own errors.
  const depth = (e: ValidationError) => ((e.path ?? '').match(/[.[]/g) ?? []).length;
  const items = (err.inner.length ? [...err.inner] : [err]).sort((a, b) => depth(a) - depth(b));
  let n = 0;
  for (const e of items) {
    if (n >= MAX_REPORTED_ERRORS) break;
    const key = boundMessage(e.path || '$', 120);
    const type = (e.params as { type?: unknown } | undefined)?.type;
    // yup's default type error prints the value ("but the final value was: ..."); name the type instead.
    // A oneOf message lists the allowed values (ours, never the input): it is kept whole up to 2,000 characters.
    const message =
      e.type === 'typeError' && /final value was/.test(e.message) ? `${key} must be a ${String(type ?? 'value of another type')}.` : boundMessage(e.message, e.type === 'oneOf' ? 2000 : undefined);
    const list = (out[key] ??= []);
    if (!list.includes(message)) {
      list.push(message);
      n++;
    }
  }
  return out;
}

const descriptions = new WeakMap<object, SchemaDescription>();
function describeOnce(schema: AnySchema): SchemaDescription {
  let d = descriptions.get(schema);
  if (!d) descriptions.set(schema, (d = schema.describe()));
  return d;
}

/**
 * Number fields whose schema sets no bound get one: integers fit PostgreSQL `integer`, other
 * numbers stay below DECIMAL_MAX, so an out-of-range number is a 400 naming the field, not a
 * database error.
 */
function numberBoundErrors(desc: SchemaFieldDescription, value: unknown, path: string, out: FieldErrors): void {
  if (!('type' in desc) || value === null || value === undefined) return;
  const d = desc as SchemaDescription & { fields?: Record<string, SchemaFieldDescription>; innerType?: SchemaFieldDescription | SchemaFieldDescription[] };
  if (d.type === 'number' && typeof value === 'number') {
    const names = new Set((d.tests ?? []).map((t) => t.name));
    const bound = names.has('integer') ? INT32_MAX : DECIMAL_MAX;
    if (!names.has('max') && value > bound) (out[path || '$'] ??= []).push(`${path} must be at most ${bound}.`);
    if (!names.has('min') && value < -bound) (out[path || '$'] ??= []).push(`${path} must be at least ${-bound}.`);
    return;
  }
  if (d.type === 'object' && d.fields && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, f] of Object.entries(d.fields)) numberBoundErrors(f, (value as Record<string, unknown>)[k], path ? `${path}.${k}` : k, out);
    return;
  }
  if (d.type === 'array' && d.innerType && !Array.isArray(d.innerType) && Array.isArray(value)) {
    const inner = d.innerType;
    value.forEach((v, i) => numberBoundErrors(inner, v, `${path}[${i}]`, out));
  }
}

/**
 * Validates input against a schema. JSON bodies are checked strictly (a string is not a
 * number), then cast so defaults apply and unknown keys are dropped (no mass assignment).
 * Query strings are coerced (they are all strings on the wire). Inputs have passed
 * checkInput (depth, NUL, string length) before they get here.
 */
export function validate<T>(schema: ObjectSchema<AnyObject>, input: unknown, mode: 'strict' | 'coerce'): T {
  if (input === undefined || input === null || typeof input !== 'object' || Array.isArray(input)) {
    if (mode === 'strict') throw AppError.validation({ $: ['The request body must be a JSON object.'] }, 'The request body must be a JSON object.');
    input = {};
  }
  // Query strings parsed by qs can hold arrays/objects (Email[a]=b, Email=a&Email=b); yup's string
  // transforms (trim) throw a TypeError on those, so scalar fields given a non-scalar are reported here.
  const shapeErrors: FieldErrors = {};
  if (mode === 'coerce') {
    const fields = schema.fields as Record<string, { type?: string }>;
    const rest = { ...(input as Record<string, unknown>) };
    for (const [k, f] of Object.entries(fields)) {
      if (['string', 'number', 'boolean', 'date'].includes(f.type ?? '') && rest[k] !== null && typeof rest[k] === 'object') {
        shapeErrors[k] = [`${k} must be a single value.`];
        delete rest[k];
      }
    }
    input = rest;
  }
  let value: T;
  try {
    if (mode === 'strict') {
      schema.validateSync(input, { strict: true, abortEarly: false });
      value = schema.cast(input, { stripUnknown: true, assert: false }) as T;
    } else {
      value = schema.validateSync(input, { abortEarly: false, stripUnknown: true }) as T;
    }
  } catch (e) {
    if (e instanceof ValidationError) throw AppError.validation({ ...toFieldErrors(e), ...shapeErrors });
    throw e;
  }
  const boundErrors: FieldErrors = {};
  numberBoundErrors(describeOnce(schema), value, '', boundErrors);
  if (Object.keys(shapeErrors).length || Object.keys(boundErrors).length) throw AppError.validation({ ...boundErrors, ...shapeErrors });
  return value;
}

type FieldTree = SchemaFieldDescription & { fields?: Record<string, SchemaFieldDescription>; innerType?: SchemaFieldDescription | SchemaFieldDescription[] };

const hasFields = (d: FieldTree) => d.type === 'object' && !!d.fields && Object.keys(d.fields).length > 0;

/**
 * Fields of a JSON body that neither the operation's schema nor its resource's read shape
 * (`readShapes`: what the resource's own GET answers) declares, as field errors: a misspelt
 * `compnyPhone` is a 400 naming it instead of a silent no-op, while a GET-modify-PUT round trip
 * (which sends back read-only fields such as `id` or `createdAt`) still passes. A part of the
 * body that one of the shapes leaves open (yup.mixed, an object without declared fields, a lazy
 * schema) is not inspected: free-form attributes and import records stay free-form.
 */
export function unknownFieldErrors(schema: ObjectSchema<AnyObject>, readShapes: readonly AnySchema[], input: unknown): FieldErrors | null {
  const out: FieldErrors = {};
  const shapes = [describeOnce(schema), ...readShapes.map((s) => describeOnce(s))] as FieldTree[];
  walkUnknown(shapes, input, '', out);
  return Object.keys(out).length ? out : null;
}

function walkUnknown(shapes: FieldTree[], value: unknown, path: string, out: FieldErrors): void {
  if (value === null || typeof value !== 'object' || Object.keys(out).length >= MAX_REPORTED_ERRORS) return;
  if (Array.isArray(value)) {
    const inner = shapes.filter((s) => s.type === 'array' && s.innerType && !Array.isArray(s.innerType)).map((s) => s.innerType as FieldTree);
    if (!inner.length || shapes.some((s) => s.type !== 'array')) return;
    value.forEach((v, i) => walkUnknown(inner, v, `${path}[${i}]`, out));
    return;
  }
  // Only where every shape that describes this level declares its fields is an unknown key an error.
  if (!shapes.length || !shapes.every(hasFields)) return;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const next = shapes.map((s) => s.fields?.[k]).filter((d): d is FieldTree => !!d);
    const field = path ? `${path}.${k}` : k;
    if (!next.length) (out[boundMessage(field, 120)] ??= []).push(`${boundMessage(field, 120)} is not a field of this operation.`);
    else walkUnknown(next, v, field, out);
  }
}
