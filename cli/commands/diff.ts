import { selectVersion } from '../../datasets/_shared/versions.js';
import { lookupDataset, unknownDataset } from '../../datasets/registry.js';
import { checkGateColumns, diffVersionFiles, toReport } from '../../ingest/diff.js';
import { NotFoundError, UsageError } from '../../warehouse/errors.js';
import type { CliContext } from '../context.js';
import { diffMarkdown, diffText } from '../format.js';
import { EXIT, ExitCode } from '../io.js';

/** `rcm diff`: two loaded versions of a dataset compared by key; exit 3 past a threshold. */
export async function diff(ctx: CliContext, dataset: string, o: { from?: string; to?: string; format: string; failOnRemoved?: number; failOnChanged?: { pct: number; columns: string[] } }): Promise<void> {
  const ds = lookupDataset(dataset);
  if (!ds) throw new UsageError(unknownDataset(dataset));
  checkGateColumns(ds, o.failOnChanged?.columns);
  const w = ctx.wh();
  const m = await w.current();
  const versions = m?.datasets[dataset] ?? [];
  if (!versions.length) throw new NotFoundError(`dataset ${dataset} has no loaded version in the current snapshot`);
  const loaded = versions.map((v) => v.version).join(', ');
  const to = o.to ? versions.find((v) => v.version === o.to) : selectVersion(dataset, versions, { rule: 'effective' })?.version;
  if (!to) throw new NotFoundError(`version ${o.to} of ${dataset} is not loaded (loaded: ${loaded})`);
  const earlier = versions.filter((v) => v !== to && (v.effective_date ?? '') <= (to.effective_date ?? ''));
  const from = o.from ? versions.find((v) => v.version === o.from) : earlier.at(-1);
  if (o.from && !from) throw new NotFoundError(`version ${o.from} of ${dataset} is not loaded (loaded: ${loaded})`);
  const d = await diffVersionFiles(ds, from ? w.path(from.file) : null, w.path(to.file), 5, o.failOnChanged?.columns);
  const report = toReport(dataset, from?.version ?? null, to.version, d, { failOnRemovedPct: o.failOnRemoved, failOnChangedPct: o.failOnChanged?.pct, failOnChangedColumns: o.failOnChanged?.columns });
  if (o.format === 'json') ctx.json(report);
  else ctx.io.stdout((o.format === 'markdown' ? diffMarkdown(report) : diffText(report)) + '\n');
  if (report.failed.length) throw new ExitCode(EXIT.threshold);
}
