/** Every entity the ORM knows; new entities are added here. */
import { ApiCredential } from './ApiCredential.js';
import { Category } from './Category.js';
import { EmailMessage } from './EmailMessage.js';
import { Organization } from './Organization.js';
import { OrganizationMember } from './OrganizationMember.js';
import { PasswordToken } from './PasswordToken.js';
import { PriceTier } from './PriceTier.js';
import { Product } from './Product.js';
import { ProductPrice } from './ProductPrice.js';
import { RateLimitBucket } from './RateLimitBucket.js';
import { User } from './User.js';

export { ApiCredential, Category, EmailMessage, Organization, OrganizationMember, PasswordToken, PriceTier, Product, ProductPrice, RateLimitBucket, User };

export const entities = [Organization, User, OrganizationMember, ApiCredential, PriceTier, PasswordToken, RateLimitBucket, EmailMessage, Category, Product, ProductPrice];
