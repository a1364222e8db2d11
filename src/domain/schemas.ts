/** Shared yup building blocks, so every endpoint words the same rule the same way. */
import * as yup from 'yup';
import { dayOf, isDateInput } from './dates.js';
import { UUID_RE } from './ids.js';

export { UUID_RE };
export const uuid = () => yup.string().matches(UUID_RE, { message: '${path} must be a valid id (UUID).', excludeEmptyString: true });
export const email = () => yup.string().trim().email('${path} must be a valid e-mail address.').max(254);
export const currencyCode = () => yup.string().matches(/^[A-Z]{3}$/, '${path} must be an ISO 4217 code such as USD.');
export const countryCode = () => yup.string().matches(/^[A-Z]{2}$/, '${path} must be an ISO 3166-1 alpha-2 code such as US.');
export const password = () => yup.string().min(8, '${path} must be at least 8 characters.').max(200);
export const name = (max = 100) => yup.string().trim().max(max);

/** A date input (src/domain/dates.ts): `2025-01-31` or `2025-01-31T00:00:00Z` / with an offset. */
export const dateInput = () =>
  yup.string().test('date-input', '${path} must be a date (2025-01-31) or an ISO 8601 date-time with an offset (2025-01-31T00:00:00Z).', (v) => v === undefined || v === null || isDateInput(v));

/** A day field: `2025-01-31`, or a date-time at midnight UTC (the caller stores `dayOf(value)`); other instants are refused. JSON bodies validate strictly, so no transform. */
export const dayInput = () =>
  yup.string().test('day', '${path} must be a date (2025-01-31) or a date-time at midnight UTC (2025-01-31T00:00:00Z).', (v) => v === undefined || v === null || dayOf(v) !== undefined);
