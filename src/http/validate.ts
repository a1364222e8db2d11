/** yup validation that reports every failing field at once as an AppError (400). */
import { ValidationError, type AnyObject, type ObjectSchema } from 'yup';
import { AppError, type FieldErrors } from '../errors.js';

function toFieldErrors(err: ValidationError): FieldErrors {
  const out: FieldErrors = {};
  const items = err.inner.length ? err.inner : [err];
  for (const e of items) {
    const key = e.path || '$';
    const list = (out[key] ??= []);
    if (!list.includes(e.message)) list.push(e.message);
  }
  return out;
}

/**
 * Validates input against a schema. JSON bodies are checked strictly (a string is not a
 * number), then cast so defaults apply and unknown keys are dropped (no mass assignment).
 * Query strings are coerced (they are all strings on the wire).
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
  try {
    if (mode === 'strict') {
      schema.validateSync(input, { strict: true, abortEarly: false });
      return schema.cast(input, { stripUnknown: true, assert: false }) as T;
    }
    const value = schema.validateSync(input, { abortEarly: false, stripUnknown: true }) as T;
    if (Object.keys(shapeErrors).length) throw AppError.validation(shapeErrors);
    return value;
  } catch (e) {
    if (e instanceof ValidationError) throw AppError.validation({ ...toFieldErrors(e), ...shapeErrors });
    throw e;
  }
}
