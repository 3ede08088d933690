import type { IngestProgress } from '../ingest/pipeline.js';
import type { DiffReport } from '../ingest/diff.js';
import { terminalSafe } from '../lib/safe_text.js';

export function fmtInt(n: number): string {
  return n.toLocaleString('en-US');
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1 << 30) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  return `${(n / (1 << 30)).toFixed(2)} GiB`;
}

/** One progress line: rows, rejects, bytes read of total, rows per second (the file name terminal-safe). */
export function progressLine(p: IngestProgress): string {
  const rate = p.elapsed_ms > 0 ? Math.round((p.rows * 1000) / p.elapsed_ms) : 0;
  const pct = p.total_bytes > 0 ? Math.min(100, Math.round((p.bytes * 100) / p.total_bytes)) : 100;
  return terminalSafe(`${p.dataset} ${p.file}: ${fmtInt(p.rows)} rows, ${fmtInt(p.rejects)} rejects, ${fmtBytes(p.bytes)}/${fmtBytes(p.total_bytes)} (${pct}%), ${fmtInt(rate)} rows/s`);
}


/** A diff report as text lines (keys, values and labels come from the files: each line terminal-safe). */
export function diffText(r: DiffReport): string {
  const c = r.counts;
  const lines = [
    `${r.dataset}: ${r.from_version ?? '(nothing)'}${r.from_seed ? ' (seed)' : ''} -> ${r.to_version}${r.from_seed ? ': replaces the seed, whose rows leave service (no release row is removed)' : ''}`,
    `  added     ${fmtInt(c.added)}${r.samples.added.length ? `  e.g. ${r.samples.added.join(', ')}` : ''}`,
    `  ${r.from_seed ? 'seed only' : 'removed  '} ${fmtInt(c.removed)} (${r.removed_pct.toFixed(2)}%)${r.samples.removed.length ? `  e.g. ${r.samples.removed.join(', ')}` : ''}`,
    `  changed   ${fmtInt(c.changed)} (${r.changed_pct.toFixed(2)}%)${r.samples.changed.length ? `  e.g. ${r.samples.changed.join(', ')}` : ''}`,
    `  unchanged ${fmtInt(c.unchanged)}`,
  ];
  if (Object.keys(r.tables).length > 1) {
    for (const [name, t] of Object.entries(r.tables)) lines.push(`  table ${name}: +${fmtInt(t.counts.added)} -${fmtInt(t.counts.removed)} ~${fmtInt(t.counts.changed)} =${fmtInt(t.counts.unchanged)}`);
  }
  const skipped = Object.entries(r.tables).flatMap(([n, t]) => (t.not_compared ?? []).map((c) => (Object.keys(r.tables).length > 1 ? `${n}.${c}` : c)));
  if (skipped.length) lines.push(`  not compared (empty in one version: not in that source's format): ${skipped.join(', ')}`);
  for (const [col, v] of Object.entries(r.columns)) {
    const s = v.samples[0];
    lines.push(`  column ${col}: ${fmtInt(v.changed)} changed${s ? `  e.g. ${s.key}: ${s.before ?? 'null'} -> ${s.after ?? 'null'}` : ''}`);
  }
  for (const f of r.failed) lines.push(`  FAIL: ${f}`);
  return lines.map(terminalSafe).join('\n');
}

/** A diff report as markdown tables, each line terminal-safe as in `diffText`. */
export function diffMarkdown(r: DiffReport): string {
  const c = r.counts;
  const ex = (a: string[]) => (a.length ? a.map((k) => `\`${k}\``).join(', ') : '');
  return [
    `### ${r.dataset}: ${r.from_version ?? '(nothing)'}${r.from_seed ? ' (seed)' : ''} → ${r.to_version}`,
    ...(r.from_seed ? ['', 'Replaces the seed, whose rows leave service: no row of a release is removed.'] : []),
    '',
    '| change | rows | share | sample keys |',
    '|---|---:|---:|---|',
    `| added | ${fmtInt(c.added)} | | ${ex(r.samples.added)} |`,
    `| ${r.from_seed ? 'seed only' : 'removed'} | ${fmtInt(c.removed)} | ${r.removed_pct.toFixed(2)}% | ${ex(r.samples.removed)} |`,
    `| changed | ${fmtInt(c.changed)} | ${r.changed_pct.toFixed(2)}% | ${ex(r.samples.changed)} |`,
    `| unchanged | ${fmtInt(c.unchanged)} | | |`,
    ...(Object.keys(r.tables).length > 1
      ? ['', '| table | added | removed | changed | unchanged |', '|---|---:|---:|---:|---:|', ...Object.entries(r.tables).map(([n, t]) => `| ${n} | ${fmtInt(t.counts.added)} | ${fmtInt(t.counts.removed)} | ${fmtInt(t.counts.changed)} | ${fmtInt(t.counts.unchanged)} |`)]
      : []),
    ...(Object.keys(r.columns).length
      ? ['', '| column | rows changed | e.g. (key: before → after) |', '|---|---:|---|', ...Object.entries(r.columns).map(([col, v]) => `| ${col} | ${fmtInt(v.changed)} | ${v.samples.map((s) => `\`${s.key}\`: ${s.before ?? 'null'} → ${s.after ?? 'null'}`).join('; ')} |`)]
      : []),
    ...(r.failed.length ? ['', ...r.failed.map((f) => `**FAIL:** ${f}`)] : []),
    '',
  ]
    .map(terminalSafe)
    .join('\n');
}
