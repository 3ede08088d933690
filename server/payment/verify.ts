import { lookupGpci } from '../../datasets/gpci/queries.js';
import { mpfsRvu } from '../../datasets/mpfs_rvu/dataset.js';
import { getRvu } from '../../datasets/mpfs_rvu/queries.js';
import { oppsCap, type OppsCapRow } from '../../datasets/opps_cap/dataset.js';
import { Dec, toCents } from '../../lib/decimal.js';
import { NotFoundError, ValidationError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { Trace } from '../trace.js';
import { paymentFor } from './service.js';

/**
 * `rcm verify pfrev`: CMS's PFS payment-amount file (PFREV, one quoted row per year, carrier,
 * locality, code and modifier with its non-facility and facility prices) read back through the
 * payment route's own composition, every row in both settings, with the RVU release and conversion
 * factor in force on the date. A data team runs it in CI after an ingest: every difference is named.
 */
export interface PfrevRow {
  line: number;
  year: string;
  locality: string;
  code: string;
  modifier: string;
  non_facility: string;
  facility: string;
}

export interface VerifyResult {
  date_of_service: string;
  rvu_version: string | null;
  checked: number;
  differences: { line: number; code: string; modifier: string; locality: string; setting: 'non_facility' | 'facility'; expected: number; answered: number | null; why?: string }[];
}

/** The PFREV rows of a file: `"2025","01112","05","76145","  ","0001339.81","0001339.81",...`; a line that is not one is a 422 naming it. */
export function readPfrev(text: string): PfrevRow[] {
  const rows: PfrevRow[] = [];
  const issues: { loc: (string | number)[]; msg: string; type: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    // Blank lines and the trailer's copyright lines ("TRL- ...") are not rows.
    if (!raw.trim() || raw.startsWith('"TRL-')) return;
    const f = raw.split('","').map((x) => x.replace(/"/g, ''));
    const [year, carrier, locality, code, mod, nonFac, fac] = f;
    if (f.length < 7 || !/^\d{4}$/.test(year ?? '') || !/^\d{5}$/.test(carrier ?? '') || !/^\d{2}$/.test(locality ?? '') || !/^[A-Z0-9]{5}$/.test(code ?? '') || !/^\d+\.\d{2}$/.test(nonFac ?? '') || !/^\d+\.\d{2}$/.test(fac ?? '')) {
      issues.push({ loc: ['file', 'line', i + 1], msg: 'not a PFREV row ("year","carrier","locality","code","modifier","non-facility price","facility price",...)', type: 'value_error' });
      return;
    }
    rows.push({ line: i + 1, year: year!, locality: `${carrier}${locality}`, code: code!, modifier: mod!.trim(), non_facility: nonFac!, facility: fac! });
  });
  if (issues.length) throw new ValidationError(issues.slice(0, 20));
  if (rows.length === 0) throw new ValidationError([{ loc: ['file'], msg: 'no PFREV row in the file', type: 'missing' }]);
  return rows;
}

/**
 * Every row priced by the payment composition at `date` (default: the effective date of the newest
 * loaded RVU release of the rows' year), non-facility at place of service 11 and facility with
 * `use_facility_rate`, each compared to the cent.
 */
export async function verifyPfrev(snapshot: SnapshotReader, rows: readonly PfrevRow[], date?: string): Promise<VerifyResult> {
  const year = rows[0]!.year;
  const releases = snapshot.versions(mpfsRvu.id).filter((v) => v.effective_date?.startsWith(year));
  const dos = date ?? releases.at(-1)?.effective_date ?? `${year}-01-01`;
  const out: VerifyResult = { date_of_service: dos, rvu_version: null, checked: 0, differences: [] };
  for (const r of rows) {
    for (const setting of ['non_facility', 'facility'] as const) {
      const expected = Number(r[setting]);
      const t = new Trace(snapshot, () => new Date(`${dos}T00:00:00Z`));
      try {
        const c = await paymentFor(snapshot, null, { code: r.code, locality: r.locality, date_of_service: dos, ...(r.modifier ? { modifier: [r.modifier] } : {}), ...(setting === 'facility' ? { use_facility_rate: true } : { place_of_service: '11' }) }, dos, t);
        out.rvu_version ??= t.versions.mpfs_rvu ?? null;
        const answered = c.physician?.allowed_phy_payment ?? null;
        if (answered !== expected) out.differences.push({ line: r.line, code: r.code, modifier: r.modifier, locality: r.locality, setting, expected, answered });
      } catch (e) {
        if (!(e instanceof NotFoundError) && !(e instanceof ValidationError)) throw e;
        out.differences.push({ line: r.line, code: r.code, modifier: r.modifier, locality: r.locality, setting, expected, answered: null, why: e.message });
      }
      out.checked++;
    }
  }
  return out;
}

export interface CapVerifyResult {
  version: string;
  date_of_service: string;
  checked: number;
  capped: number;
  /** Cap rows whose locality the loaded GPCI file does not list (the cap file lists six Southern California localities under both MACs): nothing to price. */
  skipped: { code: string; modifier: string; locality: string; why: string }[];
  differences: { code: string; modifier: string; locality: string; setting: 'non_facility' | 'facility'; expected: number; answered: number | null; why?: string }[];
}

/**
 * `rcm verify opps-cap`: every priced (status A) row of the loaded OPPS cap release against the
 * payment composition, both settings: the answer is the lesser of the PFS amount, computed here
 * apart from the composition (RVUs x GPCIs x the conversion factor it used, rounded once), and the
 * cap, and names the cap it read. Dated the cap release's effective date (or `date`).
 */
export async function verifyOppsCap(snapshot: SnapshotReader, date?: string): Promise<CapVerifyResult> {
  const release = snapshot.versions(oppsCap.id).at(-1);
  if (!release) throw new NotFoundError('opps_cap is not loaded: ingest the OPPS cap file first');
  const dos = date ?? release.effective_date ?? `${release.version.slice(0, 4)}-01-01`;
  const rows = await snapshot.all<OppsCapRow>(`SELECT * EXCLUDE (version) FROM ${oppsCap.id} WHERE version = $1 AND procstat = 'A' ORDER BY hcpcs, modifier, locality`, [release.version]);
  const out: CapVerifyResult = { version: release.version, date_of_service: dos, checked: 0, capped: 0, skipped: [], differences: [] };
  for (const c of rows) {
    const g = (await lookupGpci(snapshot, c.locality, dos))?.row;
    if (!g) {
      out.skipped.push({ code: c.hcpcs, modifier: c.modifier, locality: c.locality, why: 'the locality is not in the loaded GPCI file' });
      continue;
    }
    const rvu = await getRvu(snapshot, c.hcpcs, c.modifier, dos).catch(() => null);
    for (const setting of ['non_facility', 'facility'] as const) {
      const cap = setting === 'facility' ? c.facility_price : c.non_facility_price;
      const t = new Trace(snapshot, () => new Date(`${dos}T00:00:00Z`));
      out.checked++;
      try {
        const answer = await paymentFor(snapshot, null, { code: c.hcpcs, locality: c.locality, date_of_service: dos, ...(c.modifier ? { modifier: [c.modifier] } : {}), ...(setting === 'facility' ? { use_facility_rate: true } : { place_of_service: '11' }) }, dos, t);
        const p = answer.physician;
        if (!rvu || !p) {
          out.differences.push({ code: c.hcpcs, modifier: c.modifier, locality: c.locality, setting, expected: cap, answered: p?.allowed_phy_payment ?? null, why: rvu ? 'no physician amount' : 'not in the RVU file' });
          continue;
        }
        const r = rvu.row;
        const pe = setting === 'facility' ? r.facility_pe_rvu : r.non_fac_pe_rvu;
        const pfs = toCents(Dec.of(r.work_rvu ?? 0).mul(g.pw_gpci).add(Dec.of(pe ?? 0).mul(g.pe_gpci)).add(Dec.of(r.mp_rvu ?? 0).mul(g.mp_gpci)).mul(p.conversion_factor));
        const expected = Math.min(pfs, cap);
        if (cap < pfs) out.capped++;
        if (p.allowed_phy_payment !== expected || p.opps_cap_amount !== cap) out.differences.push({ code: c.hcpcs, modifier: c.modifier, locality: c.locality, setting, expected, answered: p.allowed_phy_payment, ...(p.opps_cap_amount !== cap ? { why: `the answer read the cap ${p.opps_cap_amount ?? 'none'}` } : {}) });
      } catch (e) {
        if (!(e instanceof NotFoundError) && !(e instanceof ValidationError)) throw e;
        out.differences.push({ code: c.hcpcs, modifier: c.modifier, locality: c.locality, setting, expected: cap, answered: null, why: e.message });
      }
    }
  }
  return out;
}
