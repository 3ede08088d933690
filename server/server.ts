import type { Server } from 'node:http';
import { SnapshotHolder } from '../warehouse/snapshot.js';
import { SqliteStateStore, type StateStore } from '../warehouse/state.js';
import { Warehouse } from '../warehouse/store.js';
import { createApp, type ServerConfig } from './app.js';
import type { Logger } from './logger.js';
import { Metrics } from './middleware/metrics.js';
import { buildRoutes } from './routes.js';

export interface RunningServer {
  server: Server;
  port: number;
  snapshots: SnapshotHolder;
  state: StateStore;
  close(): Promise<void>;
}

export interface StartOptions extends ServerConfig {
  dataDir: string;
  port: number;
  host?: string;
  logger: Logger;
  /** How often CURRENT is checked for a newly published snapshot. */
  pollMs?: number;
  now?: () => Date;
}

/** Mounts the current snapshot read-only, opens the state store and listens. */
export async function startServer(o: StartOptions): Promise<RunningServer> {
  const wh = new Warehouse(o.dataDir);
  await wh.init();
  const state = new SqliteStateStore(wh.path('state.sqlite'), o.now);
  const metrics = new Metrics();
  const snapshots = new SnapshotHolder(wh, (from, to) => {
    metrics.snapshotSwaps++;
    o.logger.info('snapshot mounted', { from, to });
  });
  await snapshots.refresh();
  if (snapshots.lastError) o.logger.error('snapshot mount failed', { error: snapshots.lastError });
  snapshots.start(o.pollMs ?? 500);
  const routes = buildRoutes({ snapshots, state, metrics: () => metrics, serviceVersion: o.serviceVersion, startedAt: new Date() });
  const { app } = createApp({ config: o, state, snapshots, routes, logger: o.logger, now: o.now, metrics });
  const server = app.listen(o.port, o.host ?? '0.0.0.0');
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((res, rej) => {
    server.once('listening', res);
    server.once('error', rej);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : o.port;
  return {
    server,
    port,
    snapshots,
    state,
    async close() {
      await new Promise<void>((res) => {
        server.close(() => res());
        server.closeIdleConnections?.();
      });
      await snapshots.stop();
      state.close();
    },
  };
}
