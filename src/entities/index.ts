/** Every entity the ORM knows; new entities are added here. */
import { ApiCredential } from './ApiCredential.js';
import { EmailMessage } from './EmailMessage.js';
import { Image } from './Image.js';
import { ImageIngestion, ImageIngestionItem } from './ImageIngestion.js';
import { Organization } from './Organization.js';
import { OrganizationMember } from './OrganizationMember.js';
import { PasswordToken } from './PasswordToken.js';
import { PriceTier } from './PriceTier.js';
import { RateLimitBucket } from './RateLimitBucket.js';
import { User } from './User.js';

export { ApiCredential, EmailMessage, Image, ImageIngestion, ImageIngestionItem, Organization, OrganizationMember, PasswordToken, PriceTier, RateLimitBucket, User };

export const entities = [Organization, User, OrganizationMember, ApiCredential, PriceTier, PasswordToken, RateLimitBucket, EmailMessage, Image, ImageIngestion, ImageIngestionItem];
