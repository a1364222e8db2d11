/** Shared yup building blocks, so every endpoint words the same rule the same way. */
import * as yup from 'yup';
import { UUID_RE } from './ids.js';

export { UUID_RE };
export const uuid = () => yup.string().matches(UUID_RE, { message: '${path} must be a valid id (UUID).', excludeEmptyString: true });
export const email = () => yup.string().trim().email('${path} must be a valid e-mail address.').max(254);
export const currencyCode = () => yup.string().matches(/^[A-Z]{3}$/, '${path} must be an ISO 4217 code such as USD.');
export const countryCode = () => yup.string().matches(/^[A-Z]{2}$/, '${path} must be an ISO 3166-1 alpha-2 code such as US.');
export const password = () => yup.string().min(8, '${path} must be at least 8 characters.').max(200);
export const name = (max = 100) => yup.string().trim().max(max);
