import { IngestError } from '../_shared/issue.js';
import type { FileSample, SourceFile } from '../_shared/source.js';
import { defineMultiTableDataset, type ParsedItem, type VersionInfo } from '../types.js';
import { NPPES_DELTA } from './delta.js';
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
 * date of the file name's range. A full file (range from 2005-05-23) is a whole version; a weekly
 * file is a delta, folded into the version before it (see README and `delta.ts`).
 */
export const nppes = defineMultiTableDataset({
  id: 'nppes',
  title: 'NPPES NPI registry (Data Dissemination full file): providers, taxonomies, identifiers, practice locations, other names',
  publisher: 'CMS National Plan and Provider Enumeration System (NPPES) Data Dissemination',
  formats: [
    'npidata_pfile_<from>-<to>.csv (330 quoted columns, header row; V.1 or V.2 layout), with optional pl_pfile_ and othername_pfile_ files of the same range (the _FileHeader.csv files are not read: each data file has its header row)',
    'a weekly release (a range not starting 20050523) is a delta: all three of its files, folded into the version before it',
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
    const weekly = parseNppesName(files[0]?.name ?? '');
    if (weekly && weekly.from !== FULL_FILE_FROM && new Set(kinds).size < 3) {
      throw new IngestError(
        `a weekly release is folded NPI by NPI: its pl_pfile and othername_pfile files decide the practice locations and other names of every NPI it carries (an NPI they do not list has none), so all three files of the week are needed; ${files.length} given`,
        files.map((f) => f.name).join(', '),
      );
    }
    for (const [i, f] of files.entries()) {
      const n = parseNppesName(f.name);
      if (!n) {
        throw new IngestError(
          "the NPPES file name is needed: its date range says whether the file is a full file or a weekly delta (expected npidata_pfile_<from>-<to>.csv, pl_pfile_..., othername_pfile_...)",
          f.name,
        );
      }
      if (n.kind !== kinds[i]) throw new IngestError(`the file is named as a ${n.kind} file but its header is a ${kinds[i]} file's`, f.name, 1);
      const first = parseNppesName(files[0]!.name)!;
      if (n.to !== first.to || n.from !== first.from) {
        throw new IngestError(`files of different releases: this one covers ${iso(n.from)} to ${iso(n.to)}, ${files[0]!.name} ${iso(first.from)} to ${iso(first.to)}`, f.name);
      }
    }
  },
  delta: NPPES_DELTA,
  mayBeEmpty: (file) => parseNppesName(file.name)?.kind !== 'npidata',
  parse: (file, ctx): AsyncIterable<ParsedItem<NppesRow>> => parseNppesFile(file, ctx),
  loadNative: loadNppesNative,
});
