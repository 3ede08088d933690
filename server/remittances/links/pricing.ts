import { Dec, toCents } from '../../../lib/decimal.js';
import { findOppsRatesIn } from '../../../datasets/opps_addendum_b/queries.js';
import { lookupGpci } from '../../../datasets/gpci/queries.js';
import { findNpi, nppesVersion } from '../../../datasets/nppes/queries.js';
import { findLocalityForZip } from '../../../datasets/zip_locality/queries.js';
import { OPPS_BILL_TYPES } from '../../../lib/vocabulary/type_of_bill.js';
import { compApcExclusionsIn, COMPREHENSIVE_SI, PACKAGING_SI } from '../../../lib/vocabulary/opps_packaging.js';
import { NotFoundError, ValidationError } from '../../../warehouse/errors.js';
import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import { resolveFacility, type Facility } from '../../facilities/service.js';
import { paymentFor, yearFiguresFor } from '../../payment/service.js';
import { Trace } from '../../trace.js';
import type { LinePricing, RemitClaim, RemitLine } from '../schemas.js';
import type { PayeeState } from './coverage.js';
import { dosOf, yearOfOpps, type PayeeLocation } from './shared.js';

/**
 * A line's pricing: the allowed amount judged against what the Medicare physician fee schedule
 * (professional lines) or the OPPS (outpatient hospital lines at a ccn) pays, through the payment
 * route's own composition; and a comprehensive APC's packaging of a claim's other lines.
 */


/** Notes of the payment composition's other blocks, left off a line's pricing notes. */
const OTHER_BLOCKS = { prac: /^(outpatient_facility|lab|dme):/, hosp: /^(physician|lab|dme):/ } as const;


/** Anesthesia codes (CPT 00100-01999): paid on base plus time units, their units the minutes. */
const isAnesthesiaCode = (code: string): boolean => /^0[01]\d{3}$/.test(code) && code >= '00100' && code <= '01999';

/**
 * A priced line's status: a line allowed nothing is never over- or underpaid (its adjustments say
 * why: `line_denied`, unless nothing was expected either); else within a cent per unit is as
 * expected (the fee schedule is rounded per unit, payers per line).
 */
function judgePricing(allowed: number, expected: Dec, units: Dec): LinePricing['status'] {
  if (allowed === 0) return expected.compare(0) === 0 ? 'as_expected' : 'not_priced';
  const diff = Dec.of(allowed).sub(expected);
  const abs = diff.compare(0) < 0 ? Dec.of(0).sub(diff) : diff;
  return abs.compare(Dec.of('0.01').mul(units)) <= 0 ? 'as_expected' : diff.compare(0) < 0 ? 'underpaid' : 'overpaid';
}

/** What a line allowed nothing says beside its expected amount. */
const DENIED = (setting: 'prac' | 'hosp', priced: { expected_allowed: number | null }) => ({
  reason: 'line_denied' as const,
  reason_text: `the line was allowed nothing: its adjustments (and any ncci or mue link) explain the denial; expected_allowed (${priced.expected_allowed}) is what the ${setting === 'hosp' ? 'OPPS' : 'fee schedule'} pays`,
  difference: null,
});

/**
 * On an outpatient claim with a comprehensive APC line (SI J1), the OPPS pays the claim once on
 * that line and packages every other OPPS service, except what the year's comprehensive-APC rules
 * exclude (lib/vocabulary/opps_packaging.ts; its preventive services are the year's list of
 * `medicare_yearly_figures`, `preventive`: null when none is loaded for the year): each other
 * priced line is expected 0, with a note. Pricings are shared between lines, so a packaged line
 * gets a new one.
 */
export function packageIntoComprehensiveApc(claim: RemitClaim, preventive: ReadonlySet<string> | null): void {
  const primary = claim.lines.findIndex((l) => l.pricing?.status_indicator === PACKAGING_SI);
  if (primary < 0) return;
  const p0 = claim.lines[primary]!.pricing!;
  const rules = p0.date_of_service ? compApcExclusionsIn(Number(p0.date_of_service.slice(0, 4))) : undefined;
  if (!rules) return;
  claim.lines.forEach((l, i) => {
    const p = l.pricing;
    if (i === primary || !p || p.expected_allowed === null || (p.status === 'not_priced' && p.reason !== 'line_denied')) return;
    const excluded = (p.status_indicator !== null && rules.status_indicators.includes(p.status_indicator)) || (l.revenue_code !== null && rules.revenue_codes.includes(l.revenue_code.padStart(4, '0'))) || (rules.preventive && l.code !== null && preventive !== null && preventive.has(l.code));
    if (excluded) return;
    const note = `packaged into the comprehensive APC of line ${primary + 1} (${claim.lines[primary]!.code}, SI ${p0.status_indicator}): expected 0 separately (${rules.citation.title})`;
    const { reason: _reason, reason_text: _text, ...rest } = p;
    l.pricing = { ...rest, status: judgePricing(l.allowed, Dec.of(0), Dec.of(1)), expected_allowed: 0, expected_per_unit: 0, difference: l.allowed, notes: [...p.notes, note] };
  });
}

type Located = { locality: string; source: 'ccn' | 'locality' | 'payee_npi'; facility?: Facility } | { locality: null; why: string };

/**
 * Prices lines through the payment route's one composition (`paymentFor`), so an expected amount
 * is the one `GET /v1/codes/{code}/payment` gives for the code, modifiers, date, place of service
 * and locality. Compositions and payee locations are memoised for the call: a day's file repeats them.
 */
export class Pricer {
  private readonly located = new Map<string, Promise<Located>>();
  private readonly composed = new Map<string, ReturnType<Pricer['compose']>>();
  private readonly priced = new Map<string, Promise<LinePricing>>();
  private readonly settled = new Map<string, LinePricing>();
  private readonly records = new Map<string, Promise<{ version: string | null; rec: Awaited<ReturnType<typeof findNpi>> | null }>>();
  /** The state of the ccn or locality asked (checkQuery). */
  private queryState: string | null = null;
  private fellBack = 0;

  constructor(
    private readonly snapshot: SnapshotReader,
    private readonly where: PayeeLocation,
    private readonly trace: Trace,
  ) {}

  /** A ccn or locality that names nothing is the caller's mistake: 422 before any line is priced. */
  async checkQuery(): Promise<void> {
    if (this.where.ccn) {
      try {
        this.queryState = (await resolveFacility(this.snapshot, null, this.where.ccn, 'reference')).effective.state;
      } catch (e) {
        if (!(e instanceof NotFoundError)) throw e;
        throw new ValidationError([{ loc: ['query', 'ccn'], msg: e.message, type: 'value_error', input: this.where.ccn }]);
      }
      if (this.where.locality) this.trace.warn(`locality ${this.where.locality} ignored: ccn ${this.where.ccn} sets the payee's locality`);
    } else if (this.where.locality) {
      const g = await lookupGpci(this.snapshot, this.where.locality);
      if (!g?.row) throw new ValidationError([{ loc: ['query', 'locality'], msg: g ? `locality ${this.where.locality} is not in GPCI ${g.version}` : 'gpci is not loaded; no locality can be priced', type: 'value_error', input: this.where.locality }]);
      this.queryState = g.row.state;
    }
  }

  /** A comprehensive APC's packaging of an outpatient claim (`packageIntoComprehensiveApc`), with the preventive list of its year. */
  async packageComprehensiveApc(claim: RemitClaim): Promise<void> {
    const date = claim.lines.find((l) => l.pricing?.status_indicator === PACKAGING_SI)?.pricing?.date_of_service;
    if (!date) return;
    const figures = await yearFiguresFor(this.snapshot, Number(date.slice(0, 4)), this.trace);
    packageIntoComprehensiveApc(claim, figures?.codes('preventive_no_cost_sharing') ?? null);
  }

  finish(): void {
    if (this.fellBack) this.trace.fallback(`pricing: ${this.fellBack} fee schedule amount${this.fellBack > 1 ? 's were' : ' was'} composed with fallback data (see the lines' pricing.notes)`);
  }

  private locate(npi: string | null): Promise<Located> {
    if (this.where.ccn) return Promise.resolve({ locality: this.where.ccn, source: 'ccn' });
    if (this.where.locality) return Promise.resolve({ locality: this.where.locality, source: 'locality' });
    const key = npi ?? '';
    let p = this.located.get(key);
    if (!p) this.located.set(key, (p = this.fromNpi(npi)));
    return p;
  }

  /** The payee's state: the ccn's or locality's asked, else the payee NPI's practice state in NPPES. */
  async payeeState(npi: string | null): Promise<PayeeState> {
    if (this.where.ccn) return { state: this.queryState, source: this.queryState ? 'ccn' : null };
    if (this.where.locality) return { state: this.queryState, source: this.queryState ? 'locality' : null };
    const state = npi ? ((await this.record(npi)).rec?.provider.practice_address?.state ?? null) : null;
    return { state, source: state ? 'payee_npi' : null };
  }

  /** The payee NPI's record in the local NPPES copy (once per call). */
  private record(npi: string) {
    let p = this.records.get(npi);
    if (!p) {
      const version = nppesVersion(this.snapshot);
      this.trace.use('nppes', version);
      this.records.set(npi, (p = version ? findNpi(this.snapshot, version, npi).then((rec) => ({ version, rec: rec ?? null })) : Promise.resolve({ version: null, rec: null })));
    }
    return p;
  }

  /** The payee NPI's practice location ZIP in the local NPPES copy, to its Medicare locality (zip_locality). */
  private async fromNpi(npi: string | null): Promise<Located> {
    if (!npi) return { locality: null, why: 'no ccn or locality given and the file names no payee NPI (N1*PE*XX)' };
    const { version, rec } = await this.record(npi);
    if (!version) return { locality: null, why: 'no ccn or locality given and nppes is not loaded to find the payee NPI\'s practice location' };
    const zip = rec?.provider.practice_address?.postal_code ?? null;
    if (!zip) return { locality: null, why: rec ? `payee NPI ${npi} has no practice location ZIP in nppes ${version}` : `payee NPI ${npi} is not in the local NPPES copy (${version}); pass ccn or locality` };
    const [hit] = await findLocalityForZip(this.snapshot, zip);
    this.trace.use('zip_locality', hit?.version ?? null);
    if (!hit) return { locality: null, why: `the practice ZIP ${zip.slice(0, 5)} of payee NPI ${npi} is not in zip_locality${this.snapshot.has('zip_locality') ? '' : ' (not loaded)'}; pass ccn or locality` };
    return { locality: hit.locality, source: 'payee_npi' };
  }

  /**
   * A line's pricing, shared with every line that reads the same inputs (a day's file prices the
   * same code, date and amount thousands of times; the answer is read-only from here on).
   */
  price(npi: string | null, claim: RemitClaim, line: RemitLine, code: string, setting: 'prac' | 'hosp'): LinePricing | Promise<LinePricing> {
    const denied = line.adjustments.some((a) => a.group !== 'PR');
    const key = `${npi}|${claim.claim_filing_indicator}|${claim.status.code}|${claim.facility_code}|${setting}|${dosOf(claim, line)}|${code}|${line.modifiers.join(',')}|${line.units}|${line.allowed}|${denied}`;
    // Settled already: the value itself (no promise turn for the thousands of lines that repeat one).
    const done = this.settled.get(key);
    if (done) return done;
    let p = this.priced.get(key);
    if (!p) {
      this.priced.set(key, (p = this.priceLine(npi, claim, line, code, setting)));
      void p.then((v) => this.settled.set(key, v), () => undefined);
    }
    return p;
  }

  private async priceLine(npi: string | null, claim: RemitClaim, line: RemitLine, code: string, setting: 'prac' | 'hosp'): Promise<LinePricing> {
    const dos = dosOf(claim, line);
    const pos = setting === 'prac' && claim.facility_code && /^\d{2}$/.test(claim.facility_code) ? claim.facility_code : null;
    const none = { expected_allowed: null, expected_per_unit: null, actual_allowed: line.allowed, difference: null, locality: null, location_source: null, place_of_service: pos, date_of_service: dos, status_indicator: null, notes: [] };
    const not = (reason: NonNullable<LinePricing['reason']>, reason_text: string, extra: Partial<LinePricing> = {}): LinePricing => ({ status: 'not_priced', reason, reason_text, ...none, ...extra });
    const fi = claim.claim_filing_indicator;
    const anesthesia = isAnesthesiaCode(code);
    if (anesthesia && fi !== 'MB') return not('unit_basis_unknown', `${code} is an anesthesia code: a payer other than Medicare Part B may count its units as minutes or as time units, which the remittance does not say`);
    if (setting === 'hosp' ? fi !== 'MA' && fi !== 'MB' : fi !== 'MB') {
      return not('other_payer_contract', `claim filing indicator ${fi ?? '(none)'} is not Medicare${setting === 'hosp' ? ' (MA or MB)' : ' Part B (MB)'}: the payer's contract prices the line, not the Medicare ${setting === 'hosp' ? 'OPPS' : 'fee schedule'}`);
    }
    if (claim.status.code === '22') return not('reversal', 'a reversal of an earlier payment (CLP02 22): the corrected claim that follows is priced');
    if (!dos) return not('no_date_of_service', 'the line and its claim carry no date of service');
    const modifiers = line.modifiers.filter((m) => /^[A-Z0-9]{2}$/.test(m));
    if (setting === 'hosp') {
      // CLP08 of an institutional claim: the first two digits of its type of bill.
      const tob = claim.facility_code && /^\d{2}$/.test(claim.facility_code) ? claim.facility_code : null;
      if (tob && !OPPS_BILL_TYPES.has(tob)) return not('institutional_claim', `type of bill ${tob}x is not a hospital outpatient claim (12x, 13x, 14x): ${tob === '11' ? 'an inpatient stay is paid per MS-DRG, not per line' : 'its lines are not paid under the OPPS'}`);
      if (!this.where.ccn) return not('no_location', 'an outpatient hospital line is priced at its hospital: pass ccn (a payee NPI names no CCN)');
    }
    const at = setting === 'hosp' ? ({ locality: this.where.ccn!, source: 'ccn' } as const) : await this.locate(npi);
    if (at.locality === null) return not('no_location', at.why);
    // An anesthesia line's units are its minutes (SVC07 as billed, else SVC05: ch. 12 section 50).
    const minutes = anesthesia && setting === 'prac' ? Math.round(line.submitted_units ?? line.units) : null;
    const key = [setting, code, modifiers.join(','), dos, pos ?? '', at.source, at.locality, minutes ?? ''].join('|');
    let p = this.composed.get(key);
    if (!p) this.composed.set(key, (p = this.compose(code, modifiers, dos, pos, at, minutes)));
    const composed = await p;
    // The composition's notes on this line's setting only (an OPPS line is not told about the physician's RVUs).
    const c = { ...composed, notes: (composed.notes ?? []).filter((n) => !OTHER_BLOCKS[setting].test(n)) };
    const where = { locality: at.source === 'ccn' ? null : at.locality, location_source: at.source, place_of_service: pos, date_of_service: dos };
    if (c.missing !== undefined) return not('not_on_fee_schedule', c.missing, where);
    const year = Number(dos.slice(0, 4));
    let perUnit: number;
    let perLine = minutes !== null;
    let si: string | null = null;
    if (setting === 'hosp') {
      const o = c.opps;
      if (!o) return not('not_on_fee_schedule', `${code} has no OPPS payment at ccn ${at.locality}${c.notes.length ? `: ${c.notes.join('; ')}` : ''}`, { ...where, notes: c.notes });
      if (o.informational) return not('institutional_claim', `ccn ${at.locality} is not paid under the OPPS (a critical access or Maryland hospital): ${c.notes.join('; ')}`, { ...where, notes: c.notes });
      if (o.year !== year) return not('no_loaded_year', `no CY${year} OPPS Addendum B is loaded${o.year ? ` (the nearest is CY${o.year})` : ''}`, { ...where, notes: c.notes });
      perUnit = o.perUnit;
      si = o.si;
      // A comprehensive APC (J1, J2) pays the claim's primary service once, whatever its units.
      perLine = COMPREHENSIVE_SI.includes(o.si);
    } else {
      if (c.perUnit === null) return not('not_on_fee_schedule', `${code} has no physician fee schedule amount${c.notes.length ? `: ${c.notes.join('; ')}` : ''}`, { ...where, notes: c.notes });
      if (c.rvuYear !== year) return not('no_loaded_year', `no CY${year} physician fee schedule release is loaded${c.rvuYear ? ` (the nearest is CY${c.rvuYear})` : ''}`, { ...where, notes: c.notes });
      perUnit = c.perUnit;
    }
    const units = Dec.of(perLine || line.units <= 0 ? 1 : line.units);
    const expected = Dec.of(perUnit).mul(units);
    const diff = Dec.of(line.allowed).sub(expected);
    const priced = { ...where, expected_allowed: toCents(expected), expected_per_unit: perUnit, actual_allowed: line.allowed, difference: toCents(diff), status_indicator: si, notes: c.notes };
    return { status: judgePricing(line.allowed, expected, units), ...priced, ...(expected.compare(0) !== 0 && line.allowed === 0 ? DENIED(setting, priced) : {}) };
  }

  /**
   * One payment composition (the payment route's): the physician fee schedule amount, and at a
   * ccn the OPPS amount with its status indicator (a packaged code, SI N, is paid 0 separately).
   */
  private async compose(code: string, modifiers: string[], dos: string, pos: string | null, at: Extract<Located, { source: unknown }>, minutes: number | null) {
    const t = new Trace(this.snapshot, () => new Date(0));
    try {
      const c = await paymentFor(
        this.snapshot,
        null,
        { code, date_of_service: dos, ...(modifiers.length ? { modifier: modifiers.slice(0, 4) } : {}), ...(pos ? { place_of_service: pos } : {}), ...(at.source === 'ccn' ? { ccn: at.locality } : { locality: at.locality }), ...(minutes !== null && minutes >= 1 && minutes <= 1440 ? { anesthesia_minutes: minutes } : {}) },
        dos,
        t,
      );
      this.trace.useAll(t.versions);
      if (t.degraded) this.fellBack++;
      const oppsVersion = at.source === 'ccn' ? (t.versions.opps_addendum_b ?? null) : null;
      const oppsYear = oppsVersion ? yearOfOpps(this.snapshot, oppsVersion) : null;
      let opps: { perUnit: number; si: string; informational: boolean; year: number | null } | null = null;
      const o = c.outpatient_facility;
      if (o) opps = { perUnit: o.allowed_fac_payment, si: o.status_indicator, informational: o.informational, year: oppsYear };
      else if (oppsVersion) {
        const [row] = await findOppsRatesIn(this.snapshot, oppsVersion, code);
        if (row?.status_indicator === 'N') opps = { perUnit: 0, si: 'N', informational: false, year: oppsYear };
      }
      return { perUnit: c.physician?.allowed_phy_payment ?? null, rvuYear: c.physician?.rvu_year ?? null, opps, notes: t.warnings };
    } catch (e) {
      if (!(e instanceof NotFoundError) && !(e instanceof ValidationError)) throw e;
      this.trace.useAll(t.versions);
      return { missing: e instanceof ValidationError && e.issues?.length ? e.issues.map((i) => i.msg).join('; ') : e.message };
    }
  }
}
