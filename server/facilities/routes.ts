import { z } from 'zod';
import { getFacility } from '../../datasets/facilities/queries.js';
import { defineRoute, type RouteDef } from '../route.js';
import { CcnSchema } from '../schemas.js';
import { FacilityProfileSchema } from './schemas.js';

/** Facility profile by CCN (reads the facilities dataset and the geography datasets). */
export const facilityRoutes: RouteDef[] = [
  defineRoute({
    method: 'get',
    path: '/v1/facilities/{ccn}',
    operationId: 'getFacility',
    tag: 'facilities',
    summary: 'Facility profile by CCN with locality, CBSA, wage index and rural flag',
    description:
      'Locality comes from the facility ZIP (CMS ZIP5 carrier locality file), falling back to its county (LOCCO). ' +
      'CBSA and the rural flag come from the facility file when it has them, otherwise they are derived and the derivation is listed in reliability.warnings.',
    auth: { scope: 'knowledge' },
    reads: 'snapshot',
    cache: true,
    params: z.object({ ccn: CcnSchema }),
    response: FacilityProfileSchema,
    errors: [404],
    examples: [{ summary: 'a hospital in California', params: { ccn: '050454' } }],
    handler: async ({ params, snapshot, reliability }) => {
      const { warnings, versions, ...profile } = await getFacility(snapshot, params.ccn);
      return { ...profile, reliability: reliability(versions, { warnings }) };
    },
  }),
];
