import type { RouteDef } from '../route.js';
import { DEFAULT_SERVERS } from '../openapi.js';
import { systemRoutes, type SystemDeps } from './system.js';
import { codeRoutes } from './codes.js';
import { paymentRoutes } from './payment.js';
import { facilityRoutes } from './facilities.js';
import { knowledgeRoutes } from './knowledge.js';
import { policyRoutes } from './policies.js';
import { feeScheduleRoutes } from './fee_schedules.js';
import { makeNcciRoutes } from './ncci.js';
import type { Writer } from '../writer/writer.js';
import { playgroundRoutes, type PlaygroundDeps } from './playground.js';
import { agentRoutes, type AgentRouteDeps } from './agents.js';
import { payerRoutes } from './payers.js';
import { drugRoutes } from './drugs.js';
import { priorAuthRoutes } from './prior_auth.js';
import { mediCalRoutes } from './medi_cal.js';
import { b340Routes } from './b340.js';
import { systemResolver } from '../agents/callbacks.js';
import { policyDocumentRoutes, type PolicyRouteDeps } from './policy_documents.js';
import { npiRoutes, type NpiRouteDeps } from './npi.js';
import { conceptRoutes, type ConceptRouteDeps } from './concepts.js';
import { DEFAULT_POLICY_MAX_BYTES } from '../policy_documents/parser.js';
import { DEFAULTS } from '../defaults.js';
import { DEFAULT_REMIT_MAX_BYTES, remittanceRoutes, type RemittanceRouteDeps } from './remittances.js';
import { claimRoutes } from './claims.js';

/**
 * The whole /v1 surface. Each area's file here (`server/routes/<area>.ts`) declares its routes once; this
 * table feeds the HTTP adapter, the pipeline's validation, the OpenAPI document, the MCP tools
 * (served at `/v1/mcp` by server/mcp/) and the contract tests. One line per route (method, path,
 * operationId, auth, reads, cache, MCP tool) is in the reviewed golden `test/golden/routes.jsonl`.
 */
export function buildRoutes(
  sys: Omit<SystemDeps, 'routes' | 'servers'> & { servers?: SystemDeps['servers']; playground?: Omit<PlaygroundDeps, 'state'>; agents?: AgentRouteDeps; policyDocuments?: PolicyRouteDeps; npi?: NpiRouteDeps; concepts?: ConceptRouteDeps; remittances?: RemittanceRouteDeps; writer?: Writer | null },
): RouteDef[] {
  const routes: RouteDef[] = [
    ...systemRoutes({ ...sys, servers: sys.servers ?? DEFAULT_SERVERS, routes: () => routes }),
    ...codeRoutes,
    ...paymentRoutes,
    ...mediCalRoutes,
    ...facilityRoutes,
    ...knowledgeRoutes,
    ...policyRoutes,
    ...feeScheduleRoutes,
    ...makeNcciRoutes({ writer: sys.writer ?? undefined }),
    ...payerRoutes,
    ...drugRoutes,
    ...priorAuthRoutes,
    ...b340Routes,
    ...remittanceRoutes(sys.remittances ?? { maxBytes: DEFAULT_REMIT_MAX_BYTES, explainer: inert('remittances.explainer') }),
    ...claimRoutes(sys.remittances ?? { maxBytes: DEFAULT_REMIT_MAX_BYTES, explainer: inert('remittances.explainer') }),
    ...conceptRoutes(sys.concepts ?? { licensed: false }),
    ...npiRoutes(sys.npi ?? { registry: null }),
    ...policyDocumentRoutes(sys.policyDocuments ?? { parser: inert('policy parser'), maxBytes: DEFAULT_POLICY_MAX_BYTES }),
    ...agentRoutes(sys.agents ?? { policy: { production: false, allowedHosts: [] }, resolve: systemResolver, idempotencyWindowMs: DEFAULTS.idempotencyWindowMs, onSubmit: () => {} }),
    ...playgroundRoutes({ state: sys.state, now: () => new Date(), enabled: true, keysPerHour: DEFAULTS.playgroundKeysPerHour, ...sys.playground }),
  ];
  return routes;
}

/** Stands in for a dependency in `routeCatalog`: any use of it throws. */
const inert = (name: string): never =>
  new Proxy(
    {},
    {
      get(_, prop) {
        throw new Error(`routeCatalog(): ${name}.${String(prop)} was used; the catalog's routes are declarations, their handlers must not be called`);
      },
    },
  ) as never;

/**
 * The route declarations without a running server: `buildRoutes` over inert dependencies, in
 * table order. For listings and checks (the golden route table, the README, the contract tests):
 * read the declarations only; a handler called from here throws on its first use of the snapshot
 * holder, the state store or the metrics.
 */
export function routeCatalog(): RouteDef[] {
  return buildRoutes({ snapshots: inert('snapshots'), state: inert('state'), readiness: inert('readiness'), metrics: inert('metrics'), serviceVersion: '0.0.0', startedAt: new Date(0) });
}
