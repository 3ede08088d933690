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
 * the Koa router, request validation, the OpenAPI document and (later) the MCP tool list.
 */
export function buildRoutes(sys: Omit<SystemDeps, 'routes'>): RouteDef[] {
  const routes: RouteDef[] = [
    ...systemRoutes({ ...sys, routes: () => routes }),
    ...codeRoutes,
    ...paymentRoutes,
    ...facilityRoutes,
    ...dataRoutes,
    ...feeScheduleRoutes,
    ...ncciPtpRoutes,
    ...ncciMueRoutes,
  ];
  return routes;
}
