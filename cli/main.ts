import { Command, CommanderError } from 'commander';
import { DomainError } from '../warehouse/errors.js';
import { SERVICE_VERSION } from './config.js';
import { CliContext, EXIT, ExitCode, type CliIO } from './context.js';
import { register as datasets } from './commands/datasets.js';
import { register as diff } from './commands/diff.js';
import { register as ingest } from './commands/ingest.js';
import { register as keys } from './commands/keys.js';
import { register as seed } from './commands/seed.js';
import { register as serve } from './commands/serve.js';
import { register as snapshots } from './commands/snapshots.js';
import { register as state } from './commands/state.js';

export { EXIT, type CliIO } from './context.js';

/** Runs the CLI; never calls process.exit, returns the exit code (0 ok, 1 error, 2 usage, 3 gate refused). */
export async function main(argv: string[], io: CliIO): Promise<number> {
  const ctx = new CliContext(io);
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
  for (const register of [datasets, ingest, snapshots, diff, seed, serve, keys, state]) register(program, ctx);

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
