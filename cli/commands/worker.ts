import { worker as startWorker } from '../../server/worker.js';
import { agentOptionsOf, loggerOf } from '../serving.js';
import { stateOptionsOf } from '../config.js';
import type { CliContext } from '../context.js';
import { SERVICE_VERSION } from '../io.js';

/** `rcm worker`: agent jobs and their callbacks without HTTP. */
export async function worker(ctx: CliContext, o: { once?: boolean }): Promise<void> {
  const c = ctx.cfg();
  const agents = agentOptionsOf(c);
  const logger = loggerOf(c, (l) => ctx.io.stdout(l));
  const wk = await startWorker({ dataDir: ctx.wh().dir, stateUrl: c.RCM_STATE_URL, logger, serviceVersion: SERVICE_VERSION, agents, pollMs: c.RCM_SNAPSHOT_POLL_MS, state: stateOptionsOf(c) });
  if (o.once) {
    await wk.runner.settle();
  } else {
    ctx.io.stderr(`rcm ${SERVICE_VERSION} worker ${wk.runner.owner} running agent jobs (data dir ${ctx.wh().dir})\n`);
    wk.runner.start(agents.pollMs, { keepAlive: true });
    await (ctx.io.untilSignal?.() ?? new Promise(() => {}));
  }
  await wk.close();
}
