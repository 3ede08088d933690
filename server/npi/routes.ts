import { defineRoute, type RouteDef } from '../route.js';
import { providerOf } from './provider.js';
import type { NppesRegistry } from './registry.js';
import { NpiLookupSchema, NpiParamsSchema, NpiQuerySchema } from './schemas.js';

export interface NpiRouteDeps {
  /** The live registry; null when `RCM_NPPES_LIVE=0`. */
  registry: NppesRegistry | null;
}

/**
 * `GET /v1/npi/{npi_number}`: who a provider is. The local NPPES copy (dataset `nppes`) is not
 * built yet, so every answer comes from the live registry (a local miss, in the spec's terms),
 * and says so; an outage answers `found: false`, degraded, never a cached miss.
 */
export function npiRoutes(d: NpiRouteDeps): RouteDef[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/npi/{npi_number}',
      operationId: 'getNpi',
      tag: 'npi',
      summary: 'Provider lookup by NPI: name, entity type, status, taxonomies and practice address',
      description:
        'The NPI must be 10 digits with a valid check digit (422 otherwise, saying which). ' +
        'Answers come from the live NPPES NPI Registry API v2.1 (RCM_NPPES_URL) until the local NPPES copy is loaded; `live=true` asks it directly. ' +
        'No match is `found: false` (200). When the registry cannot answer (timeout, outage, circuit open) the answer is `found: false` with `reliability.degraded` and a warning naming the outage. ' +
        'Not cached: every call asks the registry.',
      auth: { scope: 'knowledge' },
      // Nothing local yet (the nppes dataset is to come): the registry answers.
      reads: 'none',
      params: NpiParamsSchema,
      query: NpiQuerySchema,
      response: NpiLookupSchema,
      examples: [
        { summary: 'an orthopaedic surgeon in Asheville, NC', params: { npi_number: '1720377294' } },
        { summary: 'an NPI the registry does not know', params: { npi_number: '1234567893' } },
        { summary: 'a check digit that does not match', status: 422, params: { npi_number: '1720377295' } },
        { summary: 'not 10 digits', status: 422, params: { npi_number: '12345' } },
      ],
      handler: async ({ params, trace }) => {
        const npi = params.npi_number;
        trace.warn('the local NPPES copy (dataset nppes) is not loaded yet: the live NPPES registry answered');
        if (!d.registry) {
          trace.fallback('live NPPES lookups are off (RCM_NPPES_LIVE=0) and no local copy is loaded: nothing could be asked');
          return { npi, found: false, source: null, data_sources: [], raw: null, provider: null, reliability: trace.reliability() };
        }
        const a = await d.registry.lookup(npi);
        if (a.kind === 'unavailable') {
          trace.fallback(`NPPES registry unavailable: ${a.reason}`);
          return { npi, found: false, source: null, data_sources: ['nppes_api'], raw: null, provider: null, reliability: trace.reliability() };
        }
        if (a.kind === 'not_found') return { npi, found: false, source: null, data_sources: ['nppes_api'], raw: null, provider: null, reliability: trace.reliability() };
        return { npi, found: true, source: 'nppes_api' as const, data_sources: ['nppes_api'], raw: a.raw, provider: providerOf(a.result), reliability: trace.reliability() };
      },
    }),
  ];
}
