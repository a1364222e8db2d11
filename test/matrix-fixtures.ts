/**
 * Fixtures the security matrix uses to fill path parameters: name -> a function creating
 * a resource in the organization and returning its id. Modules register by assignment.
 */
import type { OrgFixture } from './helpers';
import { makeImage, startIngestion, uploadImage } from './image-helpers';

export const matrixFixtures: Record<string, (org: OrgFixture) => Promise<string>> = {};

/** `/api/images/:id` */
matrixFixtures.id = async (org) => uploadImage(org, { data: await makeImage(40, 30) });
/** `/api/images/ingestions/:jobId` (the URL need not answer; the job exists at once). */
matrixFixtures.jobId = async (org) => startIngestion(org, [{ imageUrl: 'http://127.0.0.1:9/none.png' }]);
