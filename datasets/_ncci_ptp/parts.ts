import { IngestError } from '../_shared/issue.js';
import type { FileSample, SourceFile } from '../_shared/source.js';
import { MEDICARE_PTP_PARTS, medicaidPart, medicaidQuarterOf, medicareVersionLabel, parseMedicarePtpName, type PtpFlavor } from './names.js';

// Part sets: one quarter is loaded from all of its parts in one call.

/** Parts in part order (f1..fN), so the loaded table stays sorted by column 1. */
export function orderParts(files: SourceFile[], flavor: PtpFlavor): SourceFile[] {
  const part = (f: SourceFile) => (flavor.program === 'medicare' ? parseMedicarePtpName(f.name)?.part : medicaidPart(f.name)) ?? 0;
  return [...files].sort((a, b) => part(a) - part(b) || a.name.localeCompare(b.name));
}

/** A Medicare set is f1..f4 of one `cci<pra|oph>` version and revision; anything else is an IngestError. */
export function checkMedicareSet(flavor: PtpFlavor, files: SourceFile[]): void {
  const family = flavor.ptpType === 'prac' ? 'pra' : 'oph';
  const parsed = files.map((f) => ({ f, n: parseMedicarePtpName(f.name) }));
  for (const { f, n } of parsed) {
    if (!n) throw new IngestError(`file name does not look like a CMS PTP part (expected cci${family}-v<NNN>r<N>-f<1-4>.txt)`, f.name);
    if (n.family !== family) throw new IngestError(`this is a cci${n.family} file; ${flavor.id} reads cci${family} files`, f.name);
  }
  const labels = new Set(parsed.map(({ n }) => medicareVersionLabel(n!)));
  if (labels.size > 1) throw new IngestError(`PTP parts from different versions in one set: ${[...labels].sort().join(', ')}`, files.map((f) => f.name).join(', '));
  const parts = parsed.map(({ n }) => n!.part).sort((a, b) => a - b);
  const dup = parts.find((p, i) => parts[i + 1] === p);
  if (dup !== undefined) throw new IngestError(`part f${dup} given twice`, files.map((f) => f.name).join(', '));
  const missing = Array.from({ length: MEDICARE_PTP_PARTS }, (_, i) => i + 1).filter((p) => !parts.includes(p));
  if (missing.length) {
    throw new IngestError(
      `incomplete PTP release ${[...labels][0]}: missing part ${missing.map((p) => `f${p}`).join(', ')} (a quarter is loaded from all ${MEDICARE_PTP_PARTS} parts in one call)`,
      files.map((f) => f.name).join(', '),
    );
  }
  const extra = parts.filter((p) => p > MEDICARE_PTP_PARTS);
  if (extra.length) throw new IngestError(`unexpected part f${extra[0]} (CMS publishes f1..f${MEDICARE_PTP_PARTS})`, files.map((f) => f.name).join(', '));
}

/** A Medicaid set is one quarter, and its parts (when named) are contiguous from f1. */
export function checkMedicaidSet(files: SourceFile[], samples: FileSample[]): void {
  const quarters = new Set<string>();
  for (const f of files) {
    const s = samples.find((x) => x.name === f.name);
    const q = medicaidQuarterOf(f.name) ?? (s ? medicaidQuarterOf(s.lines.slice(0, 5).join(' ')) : undefined);
    if (q) quarters.add(`${q.year}Q${q.quarter}`);
  }
  if (quarters.size > 1) throw new IngestError(`Medicaid PTP files from different quarters in one set: ${[...quarters].sort().join(', ')}`, files.map((f) => f.name).join(', '));
  const parts = files.map((f) => medicaidPart(f.name)).filter((p): p is number => p !== undefined).sort((a, b) => a - b);
  if (parts.length && parts.length !== files.length) throw new IngestError('some files name a part (f1, f2...) and others do not', files.map((f) => f.name).join(', '));
  const dup = parts.find((p, i) => parts[i + 1] === p);
  if (dup !== undefined) throw new IngestError(`part f${dup} given twice`, files.map((f) => f.name).join(', '));
  const max = parts.length ? parts[parts.length - 1]! : 0;
  const missing = Array.from({ length: max }, (_, i) => i + 1).filter((p) => !parts.includes(p));
  if (missing.length) throw new IngestError(`incomplete Medicaid PTP set: missing part ${missing.map((p) => `f${p}`).join(', ')}`, files.map((f) => f.name).join(', '));
}
