import { IngestError } from '../_shared/issue.js';
import type { FileSample, SourceFile } from '../_shared/source.js';
import { defineMultiTableDataset, type VersionInfo } from '../types.js';
import { FULL_FILE_FROM, kindOfHeader, parseNppesName } from './layout.js';
import { loadNppesNative } from './native.js';
import { parseNppesFile, splitCsv, type NppesRow } from './parse.js';
import { NPPES_TABLES } from './schema.js';

const iso = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;

/** A data file (not a `_FileHeader.csv`) whose first line is an NPPES header row. */
function isNppesSample(s: FileSample): boolean {
  if (parseNppesName(s.name)?.headerOnly) return false;
  const h = splitCsv(s.lines[0] ?? '');
  return !h.open && kindOfHeader(h.fields) !== undefined;
}

/**
 * NPPES Data Dissemination: the local copy of the NPI registry (CMS's monthly full file, ~9 GB,
 * 8 M NPIs), with its practice location and other name reference files. The version is the end
 * date of the file name's range; only full files (range from 2005-05-23) are versions: a weekly
 * file is a delta and is refused (see README).
 */
export const nppes = defineMultiTableDataset<NppesRow>({
  id: 'nppes',
  title: 'NPPES NPI registry (Data Dissemination full file): providers, taxonomies, identifiers, practice locations, other names',
  publisher: 'CMS National Plan and Provider Enumeration System (NPPES) Data Dissemination',
  formats: [
    'npidata_pfile_<from>-<to>.csv (330 quoted columns, header row; V.1 or V.2 layout), with optional pl_pfile_ and othername_pfile_ files of the same range (the _FileHeader.csv files are not read: each data file has its header row)',
  ],
  tables: [NPPES_TABLES.provider, NPPES_TABLES.practice_location, NPPES_TABLES.other_name],
  detect: isNppesSample,
  version(samples: FileSample[]): VersionInfo | undefined {
    const names = samples.map((s) => parseNppesName(s.name)).filter((n) => n !== undefined);
    const main = names.find((n) => n.kind === 'npidata') ?? names[0];
    return main ? { label: iso(main.to), effective_date: iso(main.to) } : undefined;
  },
  checkFiles(files: SourceFile[], samples: FileSample[]): void {
    const kinds = samples.map((s) => kindOfHeader(splitCsv(s.lines[0] ?? '').fields));
    const data = kinds.filter((k) => k === 'npidata').length;
    if (data !== 1) throw new IngestError(`an nppes version is one npidata_pfile data file with its pl_pfile and othername_pfile files; ${data} data files were given`, files.map((f) => f.name).join(', '));
    for (const [i, f] of files.entries()) {
      const n = parseNppesName(f.name);
      if (!n) {
        throw new IngestError(
          "the NPPES file name is needed: its date range says whether the file is a full file or a weekly delta (expected npidata_pfile_<from>-<to>.csv, pl_pfile_..., othername_pfile_...)",
          f.name,
        );
      }
      if (n.kind !== kinds[i]) throw new IngestError(`the file is named as a ${n.kind} file but its header is a ${kinds[i]} file's`, f.name, 1);
      if (n.from !== FULL_FILE_FROM) {
        throw new IngestError(
          `a weekly NPPES file (${iso(n.from)} to ${iso(n.to)}) is a delta over the last full file, and deltas are not supported yet: load the monthly full file (${n.kind}_pfile_${FULL_FILE_FROM}-<date>.csv); nothing was loaded`,
          f.name,
        );
      }
      const first = parseNppesName(files[0]!.name)!;
      if (n.to !== first.to) throw new IngestError(`files of different releases: this one ends ${iso(n.to)}, ${files[0]!.name} ends ${iso(first.to)}`, f.name);
    }
  },
  parse: (file, ctx) => parseNppesFile(file, ctx),
  loadNative: loadNppesNative,
});
