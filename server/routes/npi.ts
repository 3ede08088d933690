import { findNpi, nppesVersion } from '../../datasets/nppes/queries.js';
import { NO_STORE } from '../pipeline/answer.js';
import { defineRoute, result, type RouteDef } from '../route.js';
import { providerOf, providerOfLocal } from '../npi/provider.js';
import type { NppesRegistry } from '../npi/registry.js';
import { NpiLookupSchema, NpiParamsSchema, NpiQuerySchema } from '../npi/schemas.js';

/** The live registry's API version (`RCM_NPPES_URL` asks `version=2.1`): the version an answer from it names. */
const NPPES_API_VERSION = '2.1';

export interface NpiRouteDeps {
  /** The live registry; null when `RCM_NPPES_LIVE=0`. */
  registry: NppesRegistry | null;
}

/**
 * `GET /v1/npi/{npi_number}`: who a provider is. The local NPPES copy (dataset `nppes`, newest
 * version) answers first; `live=true` bypasses it; a local miss (or no local copy) asks the live
 * registry. An outage answers `found: false`, degraded. A local hit is kept in the answer cache (a
 * snapshot never changes); an answer that used or needed the registry is marked no-store and
 * never kept, so a miss or an outage is asked again next time.
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
        'The local NPPES copy (dataset nppes, its newest version) answers first: `source: nppes_local`, `data_sources` naming `nppes_local@<version>`, `raw` the local record. ' +
        'A deactivated NPI answers `found: true` with `provider.status` deactivated and its deactivation date. ' +
        'An NPI the local copy lacks (or no local copy) is asked of the live NPPES NPI Registry API v2.1 (RCM_NPPES_URL; off with RCM_NPPES_LIVE=0); `live=true` asks it directly. ' +
        'No match is `found: false` (200). When the registry cannot answer (timeout, outage, circuit open) the answer is `found: false` with `reliability.degraded` and a warning naming the outage. ' +
        'A local answer is cached per snapshot; an answer that used or needed the live registry carries `Cache-Control: no-store` and is never kept (no cached miss, no cached outage).',
      auth: { scope: 'knowledge' },
      reads: 'snapshot',
      cache: true,
      params: NpiParamsSchema,
      query: NpiQuerySchema,
      response: NpiLookupSchema,
      responseHeaders: { 'Cache-Control': { description: '`no-store` on an answer that used or needed the live registry (kept by no cache); absent on a local answer', always: false } },
      examples: [
        { summary: 'an orthopaedic surgeon in Asheville, NC (local copy)', params: { npi_number: '1720377294' } },
        { summary: 'a deactivated NPI (local copy)', params: { npi_number: '1003000142' } },
        { summary: 'the same surgeon asked of the live registry', params: { npi_number: '1720377294' }, query: { live: 'true' } },
        { summary: 'an NPI neither the local copy nor the registry knows', params: { npi_number: '1234567893' } },
        { summary: 'a check digit that does not match', status: 422, params: { npi_number: '1720377295' } },
        { summary: 'not 10 digits', status: 422, params: { npi_number: '12345' } },
      ],
      handler: async ({ params, query, snapshot, trace }) => {
        const npi = params.npi_number;
        const asked: string[] = [];
        const version = query.live ? null : nppesVersion(snapshot);
        if (version !== null) {
          asked.push(`nppes_local@${version}`);
          const rec = await findNpi(snapshot, version, npi);
          trace.use('nppes', version);
          if (rec) return { npi, found: true, source: 'nppes_local' as const, data_sources: asked, raw: { ...rec }, provider: providerOfLocal(rec), reliability: trace.reliability() };
        }
        // Why the registry is needed, said once with what became of asking it: one warning, never
        // "it was asked" beside "it could not be asked".
        const why = query.live ? 'live=true' : version !== null ? `NPI ${npi} is not in the local NPPES copy (nppes ${version})` : 'the local NPPES copy (dataset nppes) is not loaded';
        const miss = (found: boolean) => ({ npi, found, source: null, data_sources: asked, raw: null, provider: null });
        if (!d.registry) {
          trace.fallback(
            query.live
              ? 'live NPPES lookups are off on this server (RCM_NPPES_LIVE=0): the registry could not be asked; live=true skipped the local NPPES copy, so nothing was looked up (ask without live=true to use it)'
              : `${why}, and live NPPES lookups are off on this server (RCM_NPPES_LIVE=0): the registry could not be asked`,
          );
          return result(200, { ...miss(false), reliability: trace.reliability() }, NO_STORE);
        }
        asked.push('nppes_api');
        const asking = query.live ? 'live=true: the live NPPES registry was asked, not the local copy' : `${why}: the live NPPES registry was asked`;
        const a = await d.registry.lookup(npi);
        if (a.kind === 'unavailable') {
          trace.fallback(`${asking}, and it could not answer: ${a.reason}`);
          return result(200, { ...miss(false), reliability: trace.reliability() }, NO_STORE);
        }
        trace.warn(asking).useLive('nppes_api', NPPES_API_VERSION, 'CMS NPPES NPI Registry API (live)');
        if (a.kind === 'not_found') return result(200, { ...miss(false), reliability: trace.reliability() }, NO_STORE);
        return result(200, { npi, found: true, source: 'nppes_api' as const, data_sources: asked, raw: a.raw, provider: providerOf(a.result), reliability: trace.reliability() }, NO_STORE);
      },
    }),
  ];
}
