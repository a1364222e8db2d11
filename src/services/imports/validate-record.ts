import type { AnyObject, ObjectSchema } from 'yup';
import { AppError, type FieldErrors } from '../../errors.js';
import { validate } from '../../http/validate.js';
import type { ChunkRecord } from './types.js';

/**
 * Validates one record with the single-record endpoint's schema: JSON records strictly (as the
 * endpoint does), CSV records with coercion (every cell is a string). Returns the value or the errors.
 */
export function validateRecord<T>(schema: ObjectSchema<AnyObject>, rec: ChunkRecord): { value: T } | { errors: FieldErrors } {
  try {
    return { value: validate<T>(schema, rec.data, rec.source ? 'coerce' : 'strict') };
  } catch (e) {
    if (e instanceof AppError && e.errors) return { errors: e.errors };
    if (e instanceof AppError) return { errors: { $: [e.message] } };
    throw e;
  }
}
