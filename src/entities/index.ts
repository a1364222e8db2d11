/** Every entity the ORM knows; new entities are added here. */
import { ApiCredential } from './ApiCredential.js';
import { EmailMessage } from './EmailMessage.js';
import { Organization } from './Organization.js';
import { OrganizationMember } from './OrganizationMember.js';
import { PasswordToken } from './PasswordToken.js';
import { PriceTier } from './PriceTier.js';
import { RateLimitBucket } from './RateLimitBucket.js';
import { OrganizationSalesRep } from './OrganizationSalesRep.js';
import { SalesRep } from './SalesRep.js';
import { User } from './User.js';

export { ApiCredential, EmailMessage, Organization, OrganizationMember, PasswordToken, PriceTier, RateLimitBucket, User, SalesRep, OrganizationSalesRep };

export const entities = [Organization, User, OrganizationMember, ApiCredential, PriceTier, PasswordToken, RateLimitBucket, EmailMessage, SalesRep, OrganizationSalesRep];
