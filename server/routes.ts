import type { RouteDef } from './route.js';
import { DEFAULT_SERVERS } from './openapi.js';
import { systemRoutes, type SystemDeps } from './system/routes.js';
import { codeRoutes } from './codes/routes.js';
import { paymentRoutes } from './payment/routes.js';
import { facilityRoutes } from './facilities/routes.js';
import { knowledgeRoutes } from './knowledge/routes.js';
import { feeScheduleRoutes } from './fee_schedules/routes.js';
import { ncciRoutes } from './ncci/routes.js';
import { playgroundRoutes, type PlaygroundDeps } from './playground/routes.js';
import { agentRoutes, type AgentRouteDeps } from './agents/routes.js';
import { payerRoutes } from './payers/routes.js';
import { priorAuthRoutes } from './prior_auth/routes.js';
import { systemResolver } from './agents/callbacks.js';

/**
 * The whole /v1 surface on one screen. Each area (`server/<area>/routes.ts`) declares its routes
 * once; this table feeds the HTTP adapter, the pipeline's validation, the OpenAPI document, the
 * MCP tools and the contract tests.
 *
 *   GET    /v1/health                        health               public
 *   GET    /v1/health/ready                  healthReady          public
 *   GET    /v1/meta                          meta                 knowledge
 *   GET    /v1/metrics                       metrics              admin
 *   GET    /v1/openapi.json                  openapi              public
 *   GET    /v1/codes/{code}                  getCode              knowledge
 *   GET    /v1/codes/crosswalk/{code}        getCrosswalk         knowledge
 *   GET    /v1/codes/{code}/payment          getCodePayment       knowledge
 *   GET    /v1/facilities                    listFacilities       knowledge
 *   GET    /v1/facilities/{ccn}              getFacility          knowledge
 *   PUT    /v1/facilities/{ccn}              registerFacility     knowledge (201 first time)
 *   DELETE /v1/facilities/{ccn}              deleteFacility       knowledge (?hard=true)
 *   POST   /v1/facilities/{ccn}/payers       upsertFacilityPayer  knowledge (201 created / 200 updated)
 *   GET    /v1/facilities/{ccn}/payers       listFacilityPayers   knowledge
 *   GET    /v1/facilities/{ccn}/pa-overrides listPaOverrides      knowledge
 *   POST   /v1/facilities/{ccn}/pa-overrides createPaOverride     knowledge (201)
 *   DELETE /v1/facilities/{ccn}/pa-overrides/{id}  deletePaOverride  knowledge
 *   GET    /v1/prior-auth/check              checkPriorAuth       knowledge (persists a determination)
 *   GET    /v1/prior-auth/determinations/{id}  getPriorAuthDetermination  audit
 *   GET    /v1/data/changes                  listDataChanges      knowledge
 *   GET    /v1/fee-schedules/dme/{code}      getDmeFees           knowledge
 *   GET    /v1/fee-schedules/opps/{code}     getOppsFee           knowledge
 *   GET    /v1/fee-schedules/lab/{code}      getLabFee            knowledge
 *   GET    /v1/ncci/ptp/prac                 getPtpPrac           knowledge
 *   GET    /v1/ncci/ptp/hosp                 getPtpHosp           knowledge
 *   GET    /v1/ncci/mue/{code}               getMue               knowledge
 *   GET    /v1/ncci/medicaid/mue/{code}      getMedicaidMue       knowledge
 *   GET    /v1/ncci/aoc/{code}               getAoc               knowledge
 *   POST   /v1/ncci/validate                 validateClaimNcci    knowledge (a whole claim: PTP, MUE, add-ons)
 *   GET    /v1/payers/search                 searchPayers         knowledge
 *   GET    /v1/payers/denial-codes/{code}    lookupDenialCode     knowledge
 *   GET    /v1/payers/{slug}/appeal-deadline getAppealDeadline    knowledge
 *   GET    /v1/payers/{slug}/timely-filing   getTimelyFiling      knowledge
 *   GET    /v1/payers/{slug}/claim-intelligence  getClaimIntelligence  knowledge
 *   GET    /v1/directory/payers              listDirectoryPayers  public
 *   GET    /v1/directory/payers/{slug}       getDirectoryPayer    public
 *   GET    /v1/directory/payers/{slug}/denial-patterns  listPayerDenialPatterns  knowledge
 *   POST   /v1/agents/code-research          submitCodeResearch   agents (202 + Location)
 *   POST   /v1/agents/medical-necessity      submitMedicalNecessity  agents (202 + Location)
 *   POST   /v1/agents/denial-resolution      submitDenialResolution  agents (202 + Location)
 *   GET    /v1/agents/jobs/{job_id}          getAgentJob          agents
 *   POST   /v1/playground/session            createPlaygroundSession  public (test host)
 *   POST|GET|DELETE /v1/mcp                  MCP (server/mcp/): one tool per data route above
 */
export function buildRoutes(
  sys: Omit<SystemDeps, 'routes' | 'servers'> & { servers?: SystemDeps['servers']; playground?: Omit<PlaygroundDeps, 'state'>; agents?: AgentRouteDeps },
): RouteDef[] {
  const routes: RouteDef[] = [
    ...systemRoutes({ ...sys, servers: sys.servers ?? DEFAULT_SERVERS, routes: () => routes }),
    ...codeRoutes,
    ...paymentRoutes,
    ...facilityRoutes,
    ...knowledgeRoutes,
    ...feeScheduleRoutes,
    ...ncciRoutes,
    ...payerRoutes,
    ...priorAuthRoutes,
    ...agentRoutes(sys.agents ?? { policy: { production: false, allowedHosts: [] }, resolve: systemResolver, idempotencyWindowMs: 86_400_000, onSubmit: () => {} }),
    ...playgroundRoutes({ state: sys.state, now: () => new Date(), enabled: true, keysPerHour: 20, ...sys.playground }),
  ];
  return routes;
}
