/** Request shapes shared by the organization and user endpoints (sign-up and POST /api/users both take a user). */
import * as yup from 'yup';
import { countryCode, email, name, password } from '../schemas.js';

export const organizationInput = yup.object({
  Name: name(200).required(),
  BillingAddress1: name(200),
  BillingAddress2: name(200),
  BillingCity: name(100),
  BillingStateProvince: name(100),
  BillingPostalCode: name(20),
  BillingCountry: countryCode(),
  PhoneNumber: name(40),
  Email: email(),
  Website: yup.string().trim().url('${path} must be a URL.').max(300),
});

export const userInput = yup.object({
  FirstName: name().required(),
  LastName: name().required(),
  Email: email().required(),
  Password: password(),
  PhoneNumber: name(40),
});

export type OrganizationInput = yup.InferType<typeof organizationInput>;
export type UserInput = yup.InferType<typeof userInput>;
