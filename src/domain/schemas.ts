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

const s = (max: number) => yup.string().trim().max(max);
/**
 * How an order is paid, the same choices wherever a buyer's order comes into being (complete-checkout,
 * quote accept): `payment: { method: "OnAccount" }` against the customer's credit limit, or a card
 * (`billingAddress` and `creditCard`, tokenized at the provider before anything else; never stored,
 * answered or logged). A saved card is the separate `paymentProfileId`.
 */
export const paymentChoice = () =>
  yup
    .object({
      /** OnAccount: bought against the customer's credit limit (no card); a card otherwise. */
      method: yup.string().oneOf(['OnAccount', 'CreditCard']).optional(),
      // Passed to the payment provider with the card; the cart address form, other keys kept.
      billingAddress: yup
        .object({ line1: s(200), line2: s(200).nullable(), city: s(100), state: s(100).nullable(), postalCode: s(20).nullable(), country: s(2) })
        .when('method', { is: 'OnAccount', then: (o) => o.optional().default(undefined), otherwise: (o) => o.required() }),
      creditCard: yup
        .object({
          cardNumber: yup.string().trim().matches(/^[0-9 ]{12,23}$/, '${path} must be a card number.').required(),
          cardholderName: s(200).min(1).required(),
          expiryMonth: yup.string().trim().matches(/^(0?[1-9]|1[0-2])$/, '${path} must be a month 1-12.').required(),
          expiryYear: yup.string().trim().matches(/^\d{2}(\d{2})?$/, '${path} must be a year.').required(),
          cvv: yup.string().trim().matches(/^\d{3,4}$/, '${path} must be 3 or 4 digits.').required(),
        })
        .when('method', { is: 'OnAccount', then: (o) => o.optional().default(undefined), otherwise: (o) => o.required() }),
    })
    .nullable()
    .default(undefined);
