import { clfs } from '../../datasets/clfs/dataset.js';
import { findLabFees } from '../../datasets/clfs/queries.js';
import type { SourceFile } from '../../datasets/_shared/source.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { dmepos } from '../../datasets/dmepos/dataset.js';
import { findDmeFees } from '../../datasets/dmepos/queries.js';
import { toDmeRow, toLabRow } from './service.js';

/** One CLFS row the lab route answers otherwise than the file says. */
export interface LabDifference {
  line: number;
  code: string;
  modifier: string;
  field: 'rate' | 'indicator' | 'effective_date' | 'row';
  file: string | number | null;
  answered: string | number | null;
}

/**
 * `rcm verify clfs`: a CLFS file read back through the lab route's own lookup and answer row
 * (`findLabFees`, `toLabRow`, as `GET /v1/fee-schedules/lab/{code}` answers them): every row of the
 * file, its rate, indicator and effective date, in the loaded release of its year. A row the
 * parser refuses is a difference too (the file is not what was loaded).
 */
export async function verifyClfs(snapshot: SnapshotReader, file: SourceFile): Promise<{ version: string | null; checked: number; differences: LabDifference[] }> {
  const out = { version: null as string | null, checked: 0, differences: [] as LabDifference[] };
  for await (const item of clfs.parse(file, { onBytes: () => undefined })) {
    out.checked++;
    if (item.issues) {
      out.differences.push({ line: item.line, code: '', modifier: '', field: 'row', file: item.issues.map((i) => i.msg).join('; '), answered: null });
      continue;
    }
    const r = item.row;
    const fees = await findLabFees(snapshot, r.hcpcs_code, r.year);
    out.version ??= fees.version ?? null;
    const got = fees.rows.find((x) => x.modifier === r.modifier);
    if (!got) {
      out.differences.push({ line: item.line, code: r.hcpcs_code, modifier: r.modifier, field: 'row', file: 'in the file', answered: fees.version ? `not in clfs ${fees.version}` : 'no CLFS release of its year is loaded' });
      continue;
    }
    const answer = toLabRow(got);
    for (const field of ['rate', 'indicator', 'effective_date'] as const) {
      if (answer[field] !== r[field]) out.differences.push({ line: item.line, code: r.hcpcs_code, modifier: r.modifier, field, file: r[field], answered: answer[field] });
    }
  }
  return out;
}

/** One DMEPOS row the DME route answers otherwise than the file says. */
export interface DmeDifference {
  line: number;
  code: string;
  modifiers: string;
  state: string;
  field: 'non_rural_rate' | 'rural_rate' | 'ceiling' | 'floor' | 'category' | 'jurisdiction' | 'row';
  file: string | number | null;
  answered: string | number | null;
}

const DME_FIELDS = ['non_rural_rate', 'rural_rate', 'ceiling', 'floor', 'category', 'jurisdiction'] as const;

/**
 * `rcm verify dmepos`: a DMEPOS fee schedule file read back through the DME route's own lookup
 * and answer row (`findDmeFees`, `toDmeRow`, as `GET /v1/fee-schedules/dme/{code}` answers them):
 * every state row of every code, its non-rural and rural fees, ceiling, floor, category and
 * jurisdiction, in the loaded release of its year. A code's rows are asked for once, all states.
 */
export async function verifyDmepos(snapshot: SnapshotReader, file: SourceFile): Promise<{ version: string | null; checked: number; differences: DmeDifference[] }> {
  const out = { version: null as string | null, checked: 0, differences: [] as DmeDifference[] };
  const answered = new Map<string, Map<string, ReturnType<typeof toDmeRow>>>();
  const answersOf = async (code: string, year: number) => {
    const key = `${code}|${year}`;
    let m = answered.get(key);
    if (!m) {
      const fees = await findDmeFees(snapshot, code, { year, limit: 1_000_000 });
      out.version ??= fees.version ?? null;
      m = new Map(fees.rows.map((r) => [`${r.state}|${r.modifier}|${r.modifier2}`, toDmeRow(r)]));
      answered.set(key, m);
    }
    return m;
  };
  for await (const item of dmepos.parse(file, { onBytes: () => undefined })) {
    out.checked++;
    if (item.issues) {
      out.differences.push({ line: item.line, code: '', modifiers: '', state: '', field: 'row', file: item.issues.map((i) => i.msg).join('; '), answered: null });
      continue;
    }
    const r = item.row;
    const modifiers = [r.modifier, r.modifier2].filter(Boolean).join('-');
    const got = (await answersOf(r.hcpcs_code, r.year)).get(`${r.state}|${r.modifier}|${r.modifier2}`);
    if (!got) {
      out.differences.push({ line: item.line, code: r.hcpcs_code, modifiers, state: r.state, field: 'row', file: 'in the file', answered: 'not answered for its state and modifiers' });
      continue;
    }
    for (const f of DME_FIELDS) if (got[f] !== r[f]) out.differences.push({ line: item.line, code: r.hcpcs_code, modifiers, state: r.state, field: f, file: r[f], answered: got[f] });
  }
  return out;
}
