import { IngestError } from '../_shared/issue.js';
import type { FileSample } from '../_shared/source.js';
import { table } from '../_shared/table.js';
import { mainTable, type Dataset, type VersionInfo } from '../types.js';
import { cells, isHeaderStart, locatePtpLayout } from './layout.js';
import { loadPtpNative } from './native.js';
import { quarterStart } from '../_shared/dates.js';
import { medicaidQuarterOf, medicareVersionLabel, ncciVersionQuarter, parseMedicarePtpName, type PtpFlavor } from './names.js';
import { parsePtpFile } from './parse.js';
import { checkMedicaidSet, checkMedicareSet } from './parts.js';
import { PtpRowSchema, type PtpRow } from './row.js';

// Detection and version label of the four PTP datasets, and the factory that declares them.

const looksLikePtp = (s: FileSample) => s.lines.slice(0, 200).some((l) => isHeaderStart(cells(l)));
const mentionsMedicaid = (s: FileSample) => /medicaid/i.test(s.name) || /medicaid/i.test(s.lines.slice(0, 5).join(' '));
const isHospName = (t: string) => /(?:^|[^a-z])(oph|hosp|hospital|outpatient)/i.test(t);
const isPracName = (t: string) => /(?:^|[^a-z])(pra|prac|practitioner)/i.test(t);

function detectFor(flavor: PtpFlavor, s: FileSample): boolean {
  if (!looksLikePtp(s)) return false;
  if (flavor.program === 'medicare') {
    const n = parseMedicarePtpName(s.name);
    return !!n && n.family === (flavor.ptpType === 'prac' ? 'pra' : 'oph') && !mentionsMedicaid(s);
  }
  if (!mentionsMedicaid(s)) return false;
  const text = `${s.name} ${s.lines.slice(0, 3).join(' ')}`;
  return flavor.ptpType === 'hosp' ? isHospName(text) : isPracName(text) && !isHospName(text);
}

function versionFor(flavor: PtpFlavor, samples: FileSample[]): VersionInfo | undefined {
  if (flavor.program === 'medicare') {
    for (const s of samples) {
      const n = parseMedicarePtpName(s.name);
      const q = n && ncciVersionQuarter(n.major, n.minor);
      if (n && q) return { label: medicareVersionLabel(n), effective_date: quarterStart(q.year, q.quarter) };
    }
    return undefined;
  }
  for (const s of samples) {
    const q = medicaidQuarterOf(s.name) ?? medicaidQuarterOf(s.lines.slice(0, 5).join(' '));
    if (q) return { label: `${q.year}Q${q.quarter}`, effective_date: quarterStart(q.year, q.quarter) };
  }
  return undefined;
}

/**
 * Builds one of the four PTP datasets. Medicare (`ccipra`/`ccioph`) and Medicaid files share
 * the layout family: titles, a wrapped header, 7 tab-separated fields, deleted edits kept.
 */
export function makePtpDataset<const Id extends string>(flavor: PtpFlavor<Id>, extra: { publisher: string; formats: string[] }): Dataset<PtpRow, Id> {
  return {
    id: flavor.id,
    title: flavor.title,
    publisher: extra.publisher,
    formats: extra.formats,
    // A pair deleted and later re-added appears twice, with different effective dates.
    ...mainTable(table(flavor.id, PtpRowSchema, ['column1', 'column2', 'effective_date'])),
    detect: (s) => detectFor(flavor, s),
    version: (samples) => versionFor(flavor, samples),
    async *parse(file, ctx) {
      for await (const item of parsePtpFile(flavor, file, ctx)) if (item !== 'empty') yield item;
    },
    checkFiles(files, samples) {
      if (files.length === 0) throw new IngestError('no files given');
      for (const s of samples) locatePtpLayout(s.lines, s.name, flavor.program);
      if (flavor.program === 'medicare') checkMedicareSet(flavor, files);
      else checkMedicaidSet(files, samples);
    },
    loadNative: (files, samples, run, table, version) => loadPtpNative(flavor, files, samples, run, table, version),
  };
}
