import { readFileSync } from 'node:fs';
import { startBareAnswer, startBareDurable, startBareKoa } from './lib.js';
import type { SyncMode } from '../warehouse/state.js';

/**
 * Child process: a baseline route, printing its URL. `bare.ts`: a small JSON body;
 * `bare.ts durable <sqlite file> [full|normal]`: one durable insert per request;
 * `bare.ts answer <file>`: parses the JSON body and answers the file's bytes.
 */
const [mode, arg, sync] = process.argv.slice(2);
const s =
  mode === 'durable' ? await startBareDurable(arg!, (sync ?? 'full') as SyncMode) : mode === 'answer' ? await startBareAnswer(readFileSync(arg!)) : await startBareKoa();
process.stdout.write(`${s.url}\n`);
process.on('SIGTERM', () => void s.close().then(() => process.exit(0)));
