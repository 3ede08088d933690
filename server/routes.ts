import type { RouteDef } from './route.js';
import { systemRoutes, type SystemDeps } from './areas/system.js';
import { codeRoutes } from './areas/codes.js';
import { paymentRoutes } from './areas/payment.js';
import { facilityRoutes } from './areas/facilities.js';
import { dataRoutes } from './areas/data.js';
import { feeScheduleRoutes } from './areas/fee_schedules.js';
import { ncciPtpRoutes } from './areas/ncci_ptp.js';
import { ncciMueRoutes } from './areas/ncci_mue.js';

/**
 * The whole /v1 surface on one screen. Each area file declares its routes once; this table feeds
 * the dispatcher (server/dispatch.ts), request validation, the OpenAPI document and (later) the
 * MCP tool list. `GET /v1/openapi.json` (or test/contract.test.ts) shows every operation.
 */
export function buildRoutes(sys: Omit<SystemDeps, 'routes'>): RouteDef[] {
  const routes: RouteDef[] = [
    ...systemRoutes({ ...sys, routes: () => routes }), // /health, /health/ready, /meta, /metrics, /openapi.json
    ...codeRoutes, // GET /codes/{code}
    ...paymentRoutes, // GET /codes/{code}/payment
    ...facilityRoutes, // GET /facilities/{ccn}
    ...dataRoutes, // GET /data/changes
    ...feeScheduleRoutes, // GET /fee-schedules/{dme,opps,lab}/{code}, /codes/crosswalk/{code}
    ...ncciPtpRoutes, // GET /ncci/ptp/prac, /ncci/ptp/hosp
    ...ncciMueRoutes, // GET /ncci/mue/{code}, /ncci/aoc/{code}, /ncci/medicaid/mue/{code}
  ];
  return routes;
}
