/**
 * Where a hosted payment page may send the browser back to: the API's own origin, the
 * deployment's storefronts (ALLOWED_RETURN_ORIGINS) or the organization's return origins
 * (PUT /api/organizations/return-origins). Anything else is refused (no open redirect).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Config } from '../../config.js';
import { isAllowedReturnUrl, originOf } from '../../domain/organizations/return-url.js';
import { Organization } from '../../entities/index.js';
import { AppError } from '../../errors.js';

/** 400 naming `field` unless `url` is on an allowed origin. */
export async function assertReturnUrlAllowed(em: EntityManager, config: Config, orgId: string, field: string, url: string): Promise<void> {
  const org = await em.findOne(Organization, { id: orgId });
  const own = originOf(config.publicBaseUrl);
  const allowed = [...(own ? [own] : []), ...config.allowedReturnOrigins, ...(org?.allowedReturnOrigins ?? [])];
  if (!isAllowedReturnUrl(url, allowed))
    throw AppError.field(field, `${field} must be on this API's origin or one of the organization's return origins (PUT /api/organizations/return-origins).`);
}
