import { startBareKoa } from './lib.js';

/** Child process: the bare Koa baseline, printing its URL. */
const s = await startBareKoa();
process.stdout.write(`${s.url}\n`);
process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
