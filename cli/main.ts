import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DomainError } from '../warehouse/errors.js';
import { SCOPES } from '../warehouse/key_kinds.js';
import type { CliContext } from './context.js';
import { changedGate, EXIT, ExitCode, isoDate, percent, port, printJson, SERVICE_VERSION, type CliIO } from './io.js';
import { safeLines } from '../lib/safe_text.js';

export { EXIT, type CliIO } from './io.js';

/** A command's implementation: its context, then commander's arguments (positionals, options). */
type Action = (ctx: CliContext, ...args: any[]) => unknown;

/**
 * Declares every command (names, arguments, options, help) without loading what they run: each
 * action imports its `commands/<verb>.ts` (and the context: config, warehouse) when it is run, so
 * `rcm --help` loads commander and this file, and `rcm datasets` never loads the server.
 */
function declare(program: Command, io: CliIO): void {
  let context: Promise<CliContext> | undefined;
  const lazy =
    (load: () => Promise<Action>) =>
    async (...args: unknown[]): Promise<void> => {
      const [run, ctx] = await Promise.all([load(), (context ??= import('./context.js').then((m) => new m.CliContext(io)))]);
      await run(ctx, ...args);
    };
  /** The same for a command that needs only the I/O (no settings, warehouse or state store). */
  const lazyIo =
    (load: () => Promise<(io: CliIO, ...args: any[]) => unknown>) =>
    async (...args: unknown[]): Promise<void> => {
      await (await load())(io, ...args);
    };

  program
    .command('datasets')
    .description('List registered datasets, the formats each accepts, their tables and key columns')
    .option('--json', 'print JSON')
    .action(lazyIo(async () => (await import('./commands/datasets.js')).datasets));

  program
    .command('ingest')
    .description(
      'Load source files (or the publisher\'s zip) as a new immutable dataset version, diff it against the version it follows, record the change and publish a snapshot; or, given a folder or zip alone, every file of a release to its dataset as one snapshot. ' +
        'The publish is refused (exit 3) when a --fail-on-* threshold or the removal guard (RCM_MAX_REMOVED) is crossed, and refused (exit 1) for an existing label without --replace or a truncated file.',
    )
    .argument('<dataset|release>', 'dataset id (see `rcm datasets`) then its files; or, alone, a release: a folder or .zip whose files each go to the dataset that reads them, published as one snapshot')
    .argument('[file...]', 'source files of one version (e.g. all four NCCI PTP parts), or the publisher\'s .zip')
    .option('--version <label>', 'version label (default: found in the file name or title; for a release, used only by a version that states none)')
    .option('--effective-date <date>', 'date the version takes effect, YYYY-MM-DD (default: from the file; required when the file states no date)', isoDate)
    .option('--skip-failed', 'for a release: publish the versions that pass and list the ones that failed (default: all or nothing)')
    .option('--stage <label>', 'add the files to a staged release LABEL instead of publishing (an NCCI quarter part by part); `rcm stage publish LABEL` publishes it')
    .option('--dry-run', 'stage, validate and diff against the version in force, print the report, publish nothing; every gate applies (thresholds and the removal guard) and the exit code is the real run\'s')
    .option('--fail-on-removed <pct>', 'refuse (exit 3, nothing published) when more than this share of the previous version\'s keys is removed', percent)
    .option('--fail-on-changed <pct[:columns]>', 'refuse (exit 3, nothing published) when more than this share of the previous version\'s rows changed a value (release metadata such as the year does not count); with :col,col only changes of those columns count, e.g. 5%:rate for the CLFS (a name that is not a value column of the dataset is refused)', changedGate)
    .option('--replace', 'replace a version already loaded under the same label (the change record says what it supersedes)')
    .option('--allow-removals', 'publish even when more than RCM_MAX_REMOVED of the previous keys would be removed')
    .option('--reject-threshold <pct>', 'fail when more than this share of rows is rejected (default RCM_REJECT_THRESHOLD, 1%)', percent)
    .addOption(new Option('--format <format>', 'output: text, json (the summary with the diff report) or markdown').choices(['text', 'json', 'markdown']))
    .option('--json', 'same as --format json (also the default when stdout is not a terminal)')
    .action(lazy(async () => (await import('./commands/ingest.js')).ingest));

  const stage = program.command('stage').description('Releases put together file by file (`rcm ingest --stage LABEL FILE...`), published only by `rcm stage publish`');
  stage
    .command('list')
    .description('Each staged release: its files, and per dataset version whether its set of files is complete (an NCCI quarter\'s four parts)')
    .option('--json', 'print JSON')
    .action(lazy(async () => (await import('./commands/stage.js')).list));
  stage
    .command('publish')
    .description('Publish a staged release as one snapshot, all or nothing (exit 1, files kept, when a version fails); removes the staged files once published')
    .argument('<label>', 'staged release label')
    .option('--dry-run', 'stage, gate and report every version, publish nothing')
    .option('--skip-failed', 'publish the versions that pass and list the failed ones')
    .option('--version <label>', 'version label for a version whose files state none')
    .option('--effective-date <date>', 'effective date for a version whose files state none, YYYY-MM-DD', isoDate)
    .option('--replace', 'replace versions already loaded under the same labels')
    .option('--allow-removals', 'publish even when more than RCM_MAX_REMOVED of the previous keys would be removed')
    .addOption(new Option('--format <format>', 'output: text, json or markdown').choices(['text', 'json', 'markdown']))
    .option('--json', 'same as --format json')
    .action(lazy(async () => (await import('./commands/stage.js')).publish));
  stage
    .command('drop')
    .description('Remove a staged release (nothing published is touched)')
    .argument('<label>', 'staged release label')
    .action(lazy(async () => (await import('./commands/stage.js')).drop));

  const snaps = program.command('snapshots').description('List, inspect and switch published snapshots');
  snaps
    .command('list')
    .description('List snapshots (the served one is marked *) with the datasets each changed: row deltas and added/removed/changed counts')
    .option('--json', 'print JSON')
    .action(lazy(async () => (await import('./commands/snapshots.js')).list));
  snaps
    .command('show')
    .description('Print a snapshot manifest')
    .argument('<id>', 'snapshot id')
    .action(lazy(async () => (await import('./commands/snapshots.js')).show));
  snaps
    .command('use')
    .description('Serve this snapshot (rollback is `use` of an older one); a running server swaps within its poll interval')
    .argument('<id>', 'snapshot id')
    .action(lazy(async () => (await import('./commands/snapshots.js')).use));
  snaps
    .command('prune')
    .description('Keep the N newest snapshots, the served one and any a server replica reported in the last 10 minutes; remove the other manifests and every version file no kept one references')
    .requiredOption('--keep <n>', 'how many of the newest snapshots to keep (at least 1)', (v) => {
      if (!/^\d+$/.test(v) || Number(v) < 1) throw new InvalidArgumentError('a whole number of at least 1');
      return Number(v);
    })
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('--json', 'print JSON')
    .action(lazy(async () => (await import('./commands/snapshots.js')).prune));

  program
    .command('diff')
    .description('Compare two loaded versions of a dataset by key, table by table: added/removed/changed counts and sample keys; exit 3 when a threshold is crossed (to gate a file before publishing, use `rcm ingest --dry-run` with the same thresholds)')
    .argument('<dataset>', 'dataset id')
    .option('--from <version>', 'older version (default: the one before --to by effective date)')
    .option('--to <version>', 'newer version (default: the latest)')
    .addOption(new Option('--format <format>', 'output format').choices(['text', 'json', 'markdown']).default('text'))
    .option('--fail-on-removed <pct>', 'exit 3 when more than this share of the old keys was removed', percent)
    .option('--fail-on-changed <pct[:columns]>', 'exit 3 when more than this share of the old rows changed a value (release metadata does not count); with :col,col only those columns count', changedGate)
    .action(lazy(async () => (await import('./commands/diff.js')).diff));

  program
    .command('seed')
    .description("Load the embedded seeds/ (small files in the publishers' formats) as one snapshot")
    .option('--if-empty', 'only when no snapshot exists yet')
    .option('--json', 'print JSON')
    .action(lazy(async () => (await import('./commands/seed.js')).seed));

  for (const [name, description] of [
    ['serve', 'Serve the /v1 API and /v1/mcp over the current snapshot (hot-swaps when a new one is published); runs agent jobs unless RCM_AGENT_RUNNER=0'],
    ['start', 'First-run friendly serve: load seeds when no snapshot exists, create a demo tenant and test key (knowledge, agents, audit) when none exists, then serve'],
  ] as const) {
    program
      .command(name)
      .description(description)
      .option('--port <port>', 'port (default: PORT or 8080)', port)
      .action(lazy(async () => (await import('./commands/serve.js'))[name]));
  }

  program
    .command('worker')
    .description('Run agent jobs and deliver their callbacks without serving HTTP (for a deployment that separates them; set RCM_AGENT_RUNNER=0 on the servers)')
    .option('--once', 'run what is due now, then exit')
    .action(lazy(async () => (await import('./commands/worker.js')).worker));

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
    .action(lazy(async () => (await import('./commands/keys.js')).create));
  keys
    .command('list')
    .description('List keys (never the secrets)')
    .option('--tenant <tenant>', 'only this tenant')
    .option('--json', 'print JSON')
    .action(lazy(async () => (await import('./commands/keys.js')).list));
  keys
    .command('revoke')
    .description('Revoke a key; a running server rejects it on the next request')
    .argument('<id>', 'key id (from `rcm keys list`)')
    .action(lazy(async () => (await import('./commands/keys.js')).revoke));

  const tenants = program.command('tenants').description('Manage tenants');
  tenants
    .command('create')
    .description('Create a tenant')
    .argument('<name>', 'tenant name')
    .action(lazy(async () => (await import('./commands/keys.js')).createTenant));
  tenants
    .command('list')
    .description('List tenants')
    .action(lazy(async () => (await import('./commands/keys.js')).listTenants));

  const remit = program.command('remit').description('X12 835 remittances, and the 999 and 277CA acknowledgments before them');
  remit
    .command('explain')
    .description("Explain 835 files (and 999 or 277CA acknowledgments) against the current snapshot, as POST /v1/remittances/explain does: every adjustment's meaning, whose it is, the next step and its deadline, the payment reconciled, reversals paired, copies caught, findings, rejections to resubmit; several files are one call")
    .argument('<file...>', 'X12 835 files (5010 X221A1) or 999 / 277CA acknowledgments, or folders of them (their X12 files by name; other files skipped)')
    .addOption(
      new Option('--format <format>', 'output: text (claim by claim), markdown (a table per claim), json (the API answer; several files: {files, worklist, summary, reversals, findings}), posting-csv (a row per claim, line, adjustment and provider adjustment), worklist-csv (csv is its alias)')
        .choices(['text', 'markdown', 'json', 'posting-csv', 'worklist-csv', 'csv'])
        .default('text'),
    )
    .option('--redact', 'replace names, member ids, claim numbers and other identifiers with tokens stable within the output (redacted, not de-identified: dates remain)')
    .option('--as-of <date>', 'the day deadlines count from, YYYY-MM-DD (default today)', isoDate)
    .option('--ccn <ccn>', "the payee's facility (CMS Certification Number): its locality prices Medicare Part B lines")
    .option('--locality <locality>', "the payee's Medicare locality (7 digits) for pricing; without --ccn or --locality, the payee NPI's practice ZIP in the local NPPES copy")
    .option('--claims <file...>', 'the 837 files (or folders) the remitted claims were sent as: each is checked as `rcm claim check` checks it, and each remitted line marked confirmed, missed, false alarm or none against its prediction')
    .action(lazy(async () => (await import('./commands/remit.js')).explain));

  const verify = program.command('verify').description("A data team's checks after an ingest: the publisher's own amounts read back through the routes");
  verify
    .command('pfrev')
    .description('Read CMS\'s PFS payment-amount file (PFREV) back through the payment composition of the current snapshot: every row in both settings, to the cent; exit 3 naming each difference')
    .argument('<file>', 'a PFREV file (PFREV25C.txt: one quoted row per year, carrier, locality, code and modifier)')
    .option('--date-of-service <date>', 'the date priced (default: the effective date of the newest loaded RVU release of the file\'s year)', isoDate)
    .option('--json', 'the result as JSON')
    .action(lazy(async () => (await import('./commands/verify.js')).pfrev));
  verify
    .command('opps-cap')
    .description('Read every priced row of the loaded OPPS cap release back through the payment composition, both settings: the lesser of the PFS amount (computed apart) and the cap; exit 3 naming each difference')
    .option('--date-of-service <date>', 'the date priced (default: the cap release\'s effective date)', isoDate)
    .option('--json', 'the result as JSON')
    .action(lazy(async () => (await import('./commands/verify.js')).oppsCap));
  verify
    .command('clfs')
    .description('Read a CLFS file back through the lab fee route of the current snapshot: every row\'s rate, indicator and effective date; exit 3 naming each difference')
    .argument('<file>', 'a CLFS file (PUF_CLFS_CY<YEAR>_Q<n>V<n>.csv or .txt)')
    .option('--json', 'the result as JSON')
    .action(lazy(async () => (await import('./commands/verify.js')).clfsFile));
  verify
    .command('dmepos')
    .description('Read a DMEPOS fee schedule file back through the DME fee route of the current snapshot: every state row\'s fees, ceiling, floor, category and jurisdiction; exit 3 naming each difference')
    .argument('<file>', 'a DMEPOS file (DMEPOS<YY>_<MON>.csv)')
    .option('--json', 'the result as JSON')
    .action(lazy(async () => (await import('./commands/verify.js')).dmeposFile));

  const claim = program.command('claim').description('X12 837 claims, checked before they are sent');
  claim
    .command('check')
    .description("Check 837 files against the current snapshot, as POST /v1/claims/check does: each claim and line with what the payer would most likely deny (group, CARC, RARC), why, the fix and the rule, the expected allowed amount, and the timely-filing date; several files are one call")
    .argument('<file...>', 'X12 837 files (5010 X222A1 professional or X223A2 institutional), or folders of them (their X12 files by name; other files skipped)')
    .addOption(new Option('--format <format>', 'output: text (claim by claim), markdown, json (the API answer; several files: {files}), csv (a row per finding)').choices(['text', 'markdown', 'json', 'csv']).default('text'))
    .option('--as-of <date>', 'the day the filing limit counts days to, YYYY-MM-DD (default today)', isoDate)
    .option('--ccn <ccn>', 'the billing facility (CMS Certification Number): prices outpatient hospital lines and places coverage')
    .option('--locality <locality>', 'the Medicare locality (7 digits) that prices professional lines; without it, the service facility ZIP, else the billing provider ZIP')
    .action(lazy(async () => (await import('./commands/claim.js')).check));

  program
    .command('backup')
    .description('Copy the data dir (snapshots, version files, change records, the SQLite state by its online backup) to an empty folder, while servers and ingests run; serve the copy as RCM_DATA_DIR to restore')
    .argument('<dir>', 'a new or empty folder')
    .option('--json', 'print JSON')
    .action(lazy(async () => (await import('./commands/backup.js')).backup));

  const state = program.command('state').description('The state store (tenants, keys, facilities, jobs): SQLite in the data dir, or PostgreSQL with RCM_STATE_URL');
  state
    .command('migrate')
    .description('Apply pending schema migrations to the configured state store and print its version')
    .action(lazy(async () => (await import('./commands/state.js')).migrate));
  state
    .command('copy')
    .description('Copy an embedded install (a SQLite state file) into an empty PostgreSQL database, every row in one transaction')
    .requiredOption('--from <source>', 'sqlite:<path to state.sqlite>')
    .requiredOption('--to <url>', 'postgres://user@host:port/database (must hold no state rows)')
    .action(lazy(async () => (await import('./commands/state.js')).copy));
}

/** True when the command line asks for JSON output (`--json`, `--format json`). */
function wantsJson(argv: string[]): boolean {
  return argv.some((a, i) => a === '--json' || a === '--format=json' || (a === '--format' && argv[i + 1] === 'json'));
}

/** The file, line and field an ingest error names, for the JSON error. */
function fileOf(e: DomainError): Record<string, unknown> {
  const f = e as DomainError & { file?: string; line?: number; field?: string };
  return Object.fromEntries(Object.entries({ file: f.file, line: f.line, field: f.field }).filter(([, v]) => v !== undefined));
}

/** Runs the CLI; never calls process.exit, returns the exit code (0 ok, 1 error, 2 usage, 3 gate refused). */
export async function main(argv: string[], io: CliIO): Promise<number> {
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
  declare(program, io);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof ExitCode) return e.code;
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    const json = wantsJson(argv);
    // A message can quote a file name or a value read from a file: printed terminal-safe.
    const stack = () => (debug ? safeLines(String((e as Error)?.stack).split('\n')) : '');
    if (e instanceof DomainError) {
      const extra = e.issues.map((i) => `  ${i.loc.join('.')}: ${i.msg}${i.input !== undefined ? ` (got ${JSON.stringify(i.input)})` : ''}`);
      // A `--json` caller parses stdout: the error goes there as JSON too (and to stderr for people).
      if (json) printJson(io, { error: { code: e.code, message: e.message, ...(e.issues.length ? { issues: e.issues } : {}), ...fileOf(e) } });
      io.stderr(safeLines([`rcm: ${e.message}`, ...extra]) + stack());
      return e.code === 'usage' ? EXIT.usage : EXIT.error;
    }
    if (json) printJson(io, { error: { code: 'internal_error', message: (e as Error)?.message ?? String(e) } });
    io.stderr(safeLines([`rcm: ${(e as Error)?.message ?? String(e)}`]) + stack());
    return EXIT.error;
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
