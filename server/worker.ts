import { SnapshotHolder } from '../warehouse/snapshot.js';
import { openStateStore, stateLocationOf, type StateOptions } from '../warehouse/open_state.js';
import { Warehouse } from '../warehouse/store.js';
import type { JobRunner } from './agents/runner.js';
import type { Logger } from './logger.js';
import { Metrics } from './pipeline/metrics.js';
import { DEFAULT_AGENTS, makeRunner, type AgentOptions } from './agents/wiring.js';
import { Heartbeat } from './system/heartbeat.js';

/**
 * `rcm worker`: the job runner on its own (no HTTP), over the same data dir as the servers:
 * it mounts the current snapshot (following swaps) and claims jobs from the state store.
 */
export async function worker(o: {
  dataDir: string;
  /** `RCM_STATE_URL`: unset is SQLite in the data dir. */
  stateUrl?: string;
  logger: Logger;
  serviceVersion: string;
  agents: Partial<AgentOptions>;
  pollMs?: number;
  now?: () => Date;
  state?: StateOptions;
}): Promise<{ runner: JobRunner; close(): Promise<void> }> {
  const now = o.now ?? (() => new Date());
  const wh = new Warehouse(o.dataDir);
  await wh.init();
  const state = await openStateStore(stateLocationOf(wh.dir, o.stateUrl), now, o.state);
  // A worker reads the snapshot's files too: it reports the one it holds, as a server does.
  let heartbeat: Heartbeat | undefined;
  const snapshots = new SnapshotHolder(wh, { onSwap: () => void heartbeat?.beat() });
  heartbeat = new Heartbeat(state.replicas, () => snapshots.snapshot?.id ?? null, now, o.logger);
  await snapshots.refresh();
  snapshots.start(o.pollMs ?? 500);
  await heartbeat.beat();
  heartbeat.start();
  const runner = makeRunner({ state, snapshots, logger: o.logger, now, metrics: new Metrics({ processMetrics: false }), serviceVersion: o.serviceVersion, agents: { ...DEFAULT_AGENTS, ...o.agents } });
  return {
    runner,
    async close() {
      await runner.drain();
      heartbeat.stop();
      await snapshots.stop();
      await state.close();
    },
  };
}
