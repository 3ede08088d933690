import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { resolve, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DomainError } from '../warehouse/errors.js';
import { DATASETS, getDataset } from '../datasets/registry.js';
import { diffVersionFiles } from '../ingest/diff.js';
import { ingestFiles, latest } from '../ingest/pipeline.js';
import { seedAll } from '../ingest/seed.js';
import { createLogger, silentLogger } from '../server/logger.js';
import { startServer } from '../server/server.js';
import { SCOPES, SqliteStateStore, type KeyScope, type KeyType } from '../warehouse/state.js';
import { Warehouse } from '../warehouse/store.js';
import { SERVICE_VERSION, agentOptionsOf, loadConfig, serversOf, type Config } from './config.js';
import { diffMarkdown, diffText, fmtInt, progressLine, type DiffReport } from './format.js';

export interface CliIO {
  stdout(s: string): void;
  stderr(s: string): void;
  /** Progress is drawn only on a terminal. */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  /** Resolves when a long-running command (serve) should stop. */
  untilSignal?: () => Promise<void>;
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SEEDS_DIR = join(REPO_ROOT, 'seeds');

/** Exit codes: 0 ok, 1 error, 2 usage, 3 a diff threshold was crossed. */
export const EXIT = { ok: 0, error: 1, usage: 2, threshold: 3 } as const;

class ExitCode extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}

function percent(v: string): number {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(v.trim());
  if (!m) throw new InvalidArgumentError('expected a percentage like 5% or 0.5');
  return Number(m[1]);
}

function isoDate(v: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v)) throw new InvalidArgumentError('expected YYYY-MM-DD');
  return v;
}

/** Runs the CLI; never calls process.exit, returns the exit code. */
export async function main(argv: string[], io: CliIO): Promise<number> {
  let config: Config | undefined;
  const cfg = () => (config ??= loadConfig(io.env));
  const wh = () => new Warehouse(resolve(cfg().RCM_DATA_DIR));
  const json = (v: unknown) => io.stdout(JSON.stringify(v, null, 2) + '\n');
  let debug = false;

  const program = new Command('rcm')
    .description('Revenue-cycle knowledge service: ingest publisher files into versioned snapshots and serve the /v1 API')
    .version(SERVICE_VERSION, '-V, --version', 'print the service version')
    // `rcm ingest --version LABEL` belongs to the subcommand, not to the program.
    .enablePositionalOptions()
    .option('--debug', 'print stack traces on errors')
    .configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => io.stderr(s) })
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.hook('preAction', (cmd) => {
    debug = Boolean(cmd.optsWithGlobals().debug);
  });

  program
    .command('datasets')
    .description('List registered datasets, the formats each accepts and its key columns')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => {
      const rows = DATASETS.map((d) => ({ id: d.id, title: d.title, publisher: d.publisher, formats: d.formats, key: d.key, columns: d.columns.map((c) => c.name) }));
      if (o.json) return json(rows);
      for (const r of rows) io.stdout(`${r.id}\n  ${r.title} (${r.publisher})\n  formats: ${r.formats.join('; ')}\n  key: ${r.key.join(', ')}\n`);
    });

  program
    .command('ingest')
    .description('Load source files as a new immutable dataset version, diff it against the previous version, record the change and publish a snapshot')
    .argument('<dataset>', 'dataset id (see `rcm datasets`)')
    .argument('<file...>', 'source files of one version (e.g. all four NCCI PTP parts)')
    .option('--version <label>', 'version label (default: found in the file name or title)')
    .option('--effective-date <date>', 'date the version takes effect, YYYY-MM-DD (default: from the file)', isoDate)
    .option('--dry-run', 'parse, validate and diff, but publish nothing')
    .option('--reject-threshold <pct>', 'fail when more than this share of rows is rejected (default 1%)', percent)
    .option('--json', 'print one JSON summary (also the default when stdout is not a terminal)')
    .action(async (dataset: string, files: string[], o: { version?: string; effectiveDate?: string; dryRun?: boolean; rejectThreshold?: number; json?: boolean }) => {
      if (!getDataset(dataset)) throw new DomainError('usage', `unknown dataset '${dataset}' (known: ${DATASETS.map((d) => d.id).join(', ')})`);
      const asJson = o.json || !io.isTTY;
      const summary = await ingestFiles(wh(), {
        dataset,
        files: files.map((f) => resolve(f)),
        version: o.version,
        effectiveDate: o.effectiveDate,
        dryRun: o.dryRun,
        rejectThreshold: o.rejectThreshold !== undefined ? o.rejectThreshold / 100 : cfg().RCM_REJECT_THRESHOLD,
        onProgress: asJson ? undefined : (p) => io.stderr(`\r\x1b[2K${progressLine(p)}`),
      });
      if (asJson) return json(summary);
      io.stderr('\n');
      io.stdout(
        `${summary.dry_run ? 'dry run: ' : ''}${summary.dataset} ${summary.version} (effective ${summary.effective_date ?? 'n/a'}): ${fmtInt(summary.rows)} rows, ${fmtInt(summary.rejects)} rejected${summary.rejects_file ? ` (${summary.rejects_file})` : ''}\n` +
          `change: ${summary.change.summary}\n` +
          (summary.snapshot_id ? `published snapshot ${summary.snapshot_id}\n` : 'nothing published\n'),
      );
    });

  const snaps = program.command('snapshots').description('List, inspect and switch published snapshots');
  snaps
    .command('list')
    .description('List snapshots (the served one is marked *)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const w = wh();
      const [all, cur] = await Promise.all([w.listSnapshots(), w.currentId()]);
      const rows = all.map((m) => ({ id: m.id, current: m.id === cur, created_at: m.created_at, parent: m.parent, datasets: Object.fromEntries(Object.entries(m.datasets).map(([k, v]) => [k, v.map((x) => x.version)])) }));
      if (o.json) return json(rows);
      if (!rows.length) return io.stdout('no snapshots yet (run `rcm seed` or `rcm ingest`)\n');
      for (const r of rows) io.stdout(`${r.current ? '*' : ' '} ${r.id}  ${r.created_at}  ${Object.entries(r.datasets).map(([k, v]) => `${k}=${v.join('+')}`).join(' ')}\n`);
    });
  snaps
    .command('show')
    .description('Print a snapshot manifest')
    .argument('<id>', 'snapshot id')
    .action(async (id: string) => json(await wh().readManifest(id)));
  snaps
    .command('use')
    .description('Serve this snapshot (rollback is `use` of an older one); a running server swaps within its poll interval')
    .argument('<id>', 'snapshot id')
    .action(async (id: string) => {
      await wh().setCurrent(id);
      io.stdout(`now serving snapshot ${id}\n`);
    });

  program
    .command('diff')
    .description('Compare two loaded versions of a dataset by key: added/removed/changed counts and sample keys; exit 3 when a threshold is crossed')
    .argument('<dataset>', 'dataset id')
    .option('--from <version>', 'older version (default: the one before --to)')
    .option('--to <version>', 'newer version (default: the latest)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--fail-on-removed <pct>', 'exit 3 when more than this share of the old rows was removed', percent)
    .option('--fail-on-changed <pct>', 'exit 3 when more than this share of the old rows changed', percent)
    .action(async (dataset: string, o: { from?: string; to?: string; format: string; failOnRemoved?: number; failOnChanged?: number }) => {
      const ds = getDataset(dataset);
      if (!ds) throw new DomainError('usage', `unknown dataset '${dataset}'`);
      const w = wh();
      const m = await w.current();
      const versions = m?.datasets[dataset] ?? [];
      if (!versions.length) throw new DomainError('not_found', `dataset ${dataset} has no loaded version in the current snapshot`);
      const to = o.to ? versions.find((v) => v.version === o.to) : latest(versions);
      if (!to) throw new DomainError('not_found', `version ${o.to} of ${dataset} is not loaded (loaded: ${versions.map((v) => v.version).join(', ')})`);
      const idx = versions.indexOf(to);
      const from = o.from ? versions.find((v) => v.version === o.from) : idx > 0 ? versions[idx - 1] : undefined;
      if (o.from && !from) throw new DomainError('not_found', `version ${o.from} of ${dataset} is not loaded (loaded: ${versions.map((v) => v.version).join(', ')})`);
      const d = await diffVersionFiles(ds, from ? w.path(from.file) : null, w.path(to.file));
      const base = from?.rows ?? 0;
      const report: DiffReport = {
        dataset,
        from_version: from?.version ?? null,
        to_version: to.version,
        from_rows: base,
        ...d,
        removed_pct: base ? (d.counts.removed * 100) / base : 0,
        changed_pct: base ? (d.counts.changed * 100) / base : 0,
        thresholds: { removed_pct: o.failOnRemoved, changed_pct: o.failOnChanged },
        failed: [],
      };
      if (o.failOnRemoved !== undefined && report.removed_pct > o.failOnRemoved) report.failed.push(`removed ${report.removed_pct.toFixed(2)}% > ${o.failOnRemoved}%`);
      if (o.failOnChanged !== undefined && report.changed_pct > o.failOnChanged) report.failed.push(`changed ${report.changed_pct.toFixed(2)}% > ${o.failOnChanged}%`);
      if (o.format === 'json') json(report);
      else io.stdout((o.format === 'markdown' ? diffMarkdown(report) : diffText(report)) + '\n');
      if (report.failed.length) throw new ExitCode(EXIT.threshold);
    });

  program
    .command('seed')
    .description('Load the embedded seeds/ (small files in the publishers\' formats) as one snapshot')
    .option('--if-empty', 'only when no snapshot exists yet')
    .option('--json', 'print JSON')
    .action(async (o: { ifEmpty?: boolean; json?: boolean }) => {
      const w = wh();
      if (o.ifEmpty && (await w.currentId())) return io.stdout('a snapshot exists; seeds not loaded\n');
      const res = await seedAll(w, SEEDS_DIR);
      if (o.json) return json({ snapshot_id: res.snapshotId, versions: res.staged.map((s) => s.summary) });
      for (const s of res.staged) io.stdout(`${s.summary.dataset} ${s.summary.version}: ${fmtInt(s.summary.rows)} rows\n`);
      io.stdout(`published snapshot ${res.snapshotId}\n`);
    });

  const addServe = (name: string, description: string, prepare: boolean) =>
    program
      .command(name)
      .description(description)
      .option('--port <port>', 'port (default: PORT or 8080)', (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('expected a port number');
        return n;
      })
      .action(async (o: { port?: number }) => {
        const c = cfg();
        const w = wh();
        if (prepare) await prepareDemo(w, io);
        const srv = await startServer({
          dataDir: w.dir,
          port: o.port ?? c.PORT,
          host: c.HOST,
          hosts: { liveHosts: c.RCM_LIVE_HOSTS, testHosts: c.RCM_TEST_HOSTS },
          rateLimitPerMin: c.RCM_RATE_LIMIT_PER_MIN,
          publicRateLimitPerMin: c.RCM_PUBLIC_RATE_LIMIT_PER_MIN,
          adminSecret: c.RCM_ADMIN_SECRET ?? null,
          trustProxy: c.RCM_TRUST_PROXY,
          cacheMaxBytes: c.RCM_CACHE_MAX_MB * 1024 * 1024,
          memoMaxBytes: c.RCM_MEMO_MAX_MB * 1024 * 1024,
          servers: serversOf(c),
          playground: { enabled: c.RCM_PLAYGROUND, keysPerHour: c.RCM_PLAYGROUND_KEYS_PER_HOUR },
          agents: agentOptionsOf(c),
          serviceVersion: SERVICE_VERSION,
          pollMs: c.RCM_SNAPSHOT_POLL_MS,
          logger: c.RCM_LOG === 'silent' ? silentLogger : createLogger({ write: (l: string) => io.stdout(l) }),
        });
        io.stderr(`rcm ${SERVICE_VERSION} serving snapshot ${srv.snapshots.snapshot?.id ?? '(none yet)'} on http://localhost:${srv.port}/v1 (data dir ${w.dir})\n`);
        await (io.untilSignal?.() ?? new Promise(() => {}));
        await srv.close();
      });
  addServe('serve', 'Serve the /v1 API over the current snapshot (hot-swaps when a new one is published)', false);
  addServe('start', 'First-run friendly serve: load seeds when no snapshot exists, create a demo tenant and test key when none exists, then serve', true);

  program
    .command('worker')
    .description('Run agent jobs and deliver their callbacks without serving HTTP (for a deployment that separates them; set RCM_AGENT_RUNNER=0 on the servers)')
    .option('--once', 'run what is due now, then exit')
    .action(async (o: { once?: boolean }) => {
      const c = cfg();
      const w = wh();
      const logger = c.RCM_LOG === 'silent' ? silentLogger : createLogger({ write: (l: string) => io.stdout(l) });
      const { worker } = await import('../server/worker.js');
      const wk = await worker({ dataDir: w.dir, logger, serviceVersion: SERVICE_VERSION, agents: agentOptionsOf(c), pollMs: c.RCM_SNAPSHOT_POLL_MS });
      if (o.once) {
        await wk.runner.settle();
      } else {
        io.stderr(`rcm ${SERVICE_VERSION} worker ${wk.runner.owner} running agent jobs (data dir ${w.dir})\n`);
        wk.runner.start(agentOptionsOf(c).pollMs, { keepAlive: true });
        await (io.untilSignal?.() ?? new Promise(() => {}));
      }
      await wk.close();
    });

  const keys = program.command('keys').description('Manage API keys (stored hashed; works while the server runs)');
  keys
    .command('create')
    .description('Create a key; the secret is printed once')
    .requiredOption('--tenant <tenant>', 'tenant id or name (created if --create-tenant)')
    .addOption(new Option('--type <type>', 'key type: test keys work on the test host, live keys on RCM_LIVE_HOSTS').choices(['test', 'live']).default('test'))
    .option('--scopes <scopes...>', `scopes (${SCOPES.join(', ')})`, ['knowledge'])
    .option('--label <label>', 'a note to recognise the key')
    .option('--create-tenant', 'create the tenant when it does not exist')
    .option('--json', 'print JSON')
    .action(async (o: { tenant: string; type: KeyType; scopes: string[]; label?: string; createTenant?: boolean; json?: boolean }) => {
      const scopes = o.scopes.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
      const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
      if (bad.length) throw new DomainError('usage', `unknown scope(s) ${bad.join(', ')} (known: ${SCOPES.join(', ')})`);
      const st = new SqliteStateStore(wh().path('state.sqlite'));
      try {
        if (o.createTenant && !(await st.admin.findTenants()).some((t) => t.id === o.tenant || t.name === o.tenant)) await st.admin.createTenant(o.tenant);
        const { record, secret } = await st.admin.createKey({ tenant: o.tenant, type: o.type, scopes: scopes as KeyScope[], label: o.label });
        if (o.json) return json({ ...record, key: secret });
        io.stdout(`created ${record.id} (${record.type}, scopes ${record.scopes.join(',')}) for tenant ${record.tenant_id}\nkey (shown once): ${secret}\n`);
      } finally {
        await st.close();
      }
    });
  keys
    .command('list')
    .description('List keys (never the secrets)')
    .option('--tenant <tenant>', 'only this tenant')
    .option('--json', 'print JSON')
    .action(async (o: { tenant?: string; json?: boolean }) => {
      const st = new SqliteStateStore(wh().path('state.sqlite'));
      try {
        const list = await st.admin.findKeys(o.tenant ? (await st.admin.getTenant(o.tenant)).id : undefined);
        if (o.json) return json(list);
        for (const k of list) io.stdout(`${k.id}  ${k.prefix}…  ${k.type}  ${k.scopes.join(',')}  tenant=${k.tenant_id}  ${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\n`);
      } finally {
        await st.close();
      }
    });
  keys
    .command('revoke')
    .description('Revoke a key; a running server rejects it on the next request')
    .argument('<id>', 'key id (from `rcm keys list`)')
    .action(async (id: string) => {
      const st = new SqliteStateStore(wh().path('state.sqlite'));
      try {
        const k = await st.admin.revokeKey(id);
        io.stdout(`revoked ${k.id} at ${k.revoked_at}\n`);
      } finally {
        await st.close();
      }
    });

  const tenants = program.command('tenants').description('Manage tenants');
  tenants
    .command('create')
    .description('Create a tenant')
    .argument('<name>', 'tenant name')
    .action(async (name: string) => {
      const st = new SqliteStateStore(wh().path('state.sqlite'));
      try {
        const t = await st.admin.createTenant(name);
        io.stdout(`created tenant ${t.name} (${t.id})\n`);
      } finally {
        await st.close();
      }
    });
  tenants
    .command('list')
    .description('List tenants')
    .action(async () => {
      const st = new SqliteStateStore(wh().path('state.sqlite'));
      try {
        for (const t of await st.admin.findTenants()) io.stdout(`${t.id}  ${t.name}  ${t.created_at}\n`);
      } finally {
        await st.close();
      }
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof ExitCode) return e.code;
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    if (e instanceof DomainError) {
      const extra = e.issues.length ? `\n${e.issues.map((i) => `  ${i.loc.join('.')}: ${i.msg}${i.input !== undefined ? ` (got ${JSON.stringify(i.input)})` : ''}`).join('\n')}` : '';
      io.stderr(`rcm: ${e.message}${extra}\n`);
      if (debug) io.stderr(`${e.stack}\n`);
      return e.code === 'usage' ? EXIT.usage : EXIT.error;
    }
    io.stderr(`rcm: ${(e as Error)?.message ?? String(e)}\n`);
    if (debug) io.stderr(`${(e as Error)?.stack}\n`);
    return EXIT.error;
  }
}

/** First run: seeds when nothing is published, and a demo tenant with a test key shown once. */
async function prepareDemo(w: Warehouse, io: CliIO): Promise<void> {
  if (!(await w.currentId())) {
    io.stderr('no snapshot yet: loading seeds/ ...\n');
    const res = await seedAll(w, SEEDS_DIR);
    io.stderr(`published snapshot ${res.snapshotId} (${res.staged.map((s) => `${s.summary.dataset} ${s.summary.version}`).join(', ')})\n`);
  }
  const st = new SqliteStateStore(w.path('state.sqlite'));
  try {
    if ((await st.admin.findTenants()).length === 0) {
      await st.admin.createTenant('demo');
      const { record, secret } = await st.admin.createKey({ tenant: 'demo', type: 'test', scopes: ['knowledge', 'agents', 'audit'], label: 'demo key created by rcm start' });
      io.stderr(`created tenant 'demo' and test key ${record.id}; key (shown once, stored hashed):\n  ${secret}\n`);
    }
  } finally {
    await st.close();
  }
}

/** Entry for bin/rcm.js: wires the real process once. */
export async function run(argv: string[]): Promise<number> {
  // `rcm datasets | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
  });
  return main(argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    isTTY: Boolean(process.stdout.isTTY),
    env: process.env,
    untilSignal: () =>
      new Promise<void>((res) => {
        process.once('SIGINT', () => res());
        process.once('SIGTERM', () => res());
      }),
  });
}
