import { toCents, type Dec } from '../../lib/decimal.js';
import { ownValue } from '../../lib/own.js';
import { CLAIM_NM1 } from '../../lib/vocabulary/x12_qualifiers.js';
import { components, finding, money, moneyOrNull, num, opt, quantity, Unparseable, type Ctx, type RawAdj } from './reading.js';
import type { Segment } from './x12.js';

/**
 * The segments of a claim (loop 2100) and its service lines (loop 2110), each read by its own unit
 * in `CLAIM_SEGMENTS`: what it adds to the claim or line being read. The TR3's names for the
 * qualifiers the 835 defines are here too, so the answer says what each identifier, amount and
 * quantity is.
 */

export interface Nm1Name {
  last: string | null;
  first: string | null;
  middle: string | null;
  suffix: string | null;
  qualifier: string | null;
  id: string | null;
  seg: Segment;
}

export interface Coded<T> {
  qualifier: string;
  value: T;
  seg: Segment;
}

export interface LineAcc {
  seg: Segment;
  qualifier: string | null;
  code: string | null;
  modifiers: string[];
  revenue: string | null;
  units: number;
  /** SVC07: the units as billed, when the payer paid another number (anesthesia: the minutes billed). */
  submittedUnits: number | null;
  charged: Dec;
  paid: Dec;
  original: string | null;
  from: string | null;
  to: string | null;
  control: string | null;
  renderingNpi: Coded<string> | null;
  allowed: Dec | null;
  adjs: RawAdj[];
  remarks: { code: string; seg: Segment }[];
  refs: Coded<string>[];
  amounts: Coded<Dec>[];
  quantities: Coded<number>[];
}

export interface ClaimAcc {
  seg: Segment;
  pcn: string;
  status: string;
  charged: Dec;
  paid: Dec;
  patient: Dec;
  filing: string | null;
  icn: string | null;
  facility: string | null;
  frequency: string | null;
  drg: { code: string; weight: number | null; fraction: number | null } | null;
  from: string | null;
  to: string | null;
  received: string | null;
  crossover: { name: string | null; id: string | null } | null;
  people: Map<string, Nm1Name>;
  originalRef: string | null;
  refs: Coded<string>[];
  amounts: Coded<Dec>[];
  quantities: Coded<number>[];
  inpatient: Record<string, number | null> | null;
  outpatient: Record<string, number | null> | null;
  adjs: RawAdj[];
  remarks: { code: string; seg: Segment }[];
  lines: LineAcc[];
}

/** What a claim segment's reader works on: the claim being read and its current line. */
export interface ClaimReading {
  c: Ctx;
  claim: ClaimAcc;
  line: LineAcc | null;
  /** CCYYMMDD to YYYY-MM-DD, memoised for the transaction. */
  dateOf: (s: string | undefined) => string | null;
  /** The claim's index in its transaction (findings). */
  ci: number;
}

type SegmentReader = (r: ClaimReading, seg: Segment) => void;



const UNITS = /^-?\d{1,9}(?:\.\d{1,6})?$/;

/** SVC: a service line, its code (SVC01), charge, payment, revenue code, units and the code as billed. */
function readSvc(r: ClaimReading, seg: Segment): void {
  const comp = components(r.c, seg.el[0] ?? '', seg);
  const orig = seg.el[5] ? components(r.c, seg.el[5], seg) : null;
  // SVC05 units: a count with up to 6 decimals, negative in a reversal (absent: 1); anything else does not read.
  const units = num(seg.el[4]);
  if (units && !UNITS.test(units)) throw new Unparseable('SVC05 units');
  r.line = {
    seg,
    qualifier: opt(comp[0]),
    code: opt(comp[1]),
    modifiers: comp.slice(2, 6).map((m) => m.trim()).filter(Boolean),
    revenue: opt(seg.el[3]),
    units: units ? Number(units) : 1,
    submittedUnits: UNITS.test(num(seg.el[6])) ? Number(num(seg.el[6])) : null,
    charged: money(seg.el[1], 'SVC02', true),
    paid: money(seg.el[2], 'SVC03', true),
    original: orig ? opt(orig[1]) : null,
    from: null,
    to: null,
    control: null,
    renderingNpi: null,
    allowed: null,
    adjs: [],
    remarks: [],
    refs: [],
    amounts: [],
    quantities: [],
  };
  r.claim.lines.push(r.line);
}

/** CAS: up to six triplets of reason, amount and quantity under one group (a seventh is not in the 835). */
function readCas(r: ClaimReading, seg: Segment): void {
  const group = num(seg.el[0]).toUpperCase();
  const out: RawAdj[] = [];
  for (let k = 1; k < seg.el.length && k < 19; k += 3) {
    const reason = num(seg.el[k]).toUpperCase().replace(/^0+(?=\d)/, '');
    if (!reason) continue;
    const q = num(seg.el[k + 2]);
    out.push({ group, reason, amount: money(seg.el[k + 1], 'CAS amount'), quantity: q && Number.isFinite(Number(q)) ? Number(q) : null, seg });
  }
  if (!group || out.length === 0) throw new Unparseable('CAS without a group and reason');
  const li = r.line ? r.claim.lines.length - 1 : null;
  if (seg.el.slice(19).some((e) => num(e) !== '')) {
    finding(r.c, 'cas_triplets_exceeded', 'error', `segment ${seg.index} (CAS) has more than six reason, amount and quantity triplets, which the 835 does not allow: the seventh and later are not read, so the amounts may not balance`, seg, r.ci, li);
  }
  (r.line ? r.line.adjs : r.claim.adjs).push(...out);
}

/** DTM: a line's service dates (472, 150/151); a claim's statement dates (232/233) and received date (050). */
function readDtm(r: ClaimReading, seg: Segment): void {
  const q = num(seg.el[0]);
  const d = r.dateOf(seg.el[1]);
  if (r.line) {
    if (q === '472') r.line.from = r.line.to = d;
    else if (q === '150') r.line.from = d;
    else if (q === '151') r.line.to = d;
  } else if (q === '232') r.claim.from = d;
  else if (q === '233') r.claim.to = d;
  else if (q === '050') r.claim.received = d;
}

/** NM1: the patient, insured, corrected name and rendering provider (2100); TT the crossover carrier. */
function readNm1(r: ClaimReading, seg: Segment): void {
  if (r.line) return;
  const who = num(seg.el[0]).toUpperCase();
  // 2100 NM1*TT: the crossover carrier the claim was forwarded to (NM103 name, NM109 id).
  if (who === 'TT') r.claim.crossover = { name: opt(seg.el[2]), id: opt(seg.el[8]) };
  else if (Object.hasOwn(CLAIM_NM1, who) && !r.claim.people.has(who)) {
    r.claim.people.set(who, { last: opt(seg.el[2]), first: opt(seg.el[3]), middle: opt(seg.el[4]), suffix: opt(seg.el[6]), qualifier: opt(seg.el[7])?.toUpperCase() ?? null, id: opt(seg.el[8]), seg });
  }
}

/** AMT: a line's allowed amount (B6) and other amounts; a claim's amounts (interest, coverage ...). */
function readAmt(r: ClaimReading, seg: Segment): void {
  const q = num(seg.el[0]).toUpperCase();
  const amount = money(seg.el[1], 'AMT02');
  if (r.line) {
    if (q === 'B6') r.line.allowed = amount;
    r.line.amounts.push({ qualifier: q, value: amount, seg });
  } else r.claim.amounts.push({ qualifier: q, value: amount, seg });
}

/** QTY: a claim's covered, non-covered and reserve days, visits ...; a line's mandate units. */
function readQty(r: ClaimReading, seg: Segment): void {
  const q = quantity(seg.el[1]);
  if (q === null) throw new Unparseable('QTY02 quantity');
  (r.line ? r.line.quantities : r.claim.quantities).push({ qualifier: num(seg.el[0]).toUpperCase(), value: q, seg });
}

/** REF: a line's control number (6R) and rendering NPI (HPI); a claim's original reference (F8) and other identifiers. */
function readRef(r: ClaimReading, seg: Segment): void {
  const q = num(seg.el[0]).toUpperCase();
  const value = opt(seg.el[1]);
  if (!value) return;
  if (r.line) {
    if (q === '6R') r.line.control = value;
    else if (q === 'HPI') r.line.renderingNpi = { qualifier: q, value, seg };
    else r.line.refs.push({ qualifier: q, value, seg });
  } else if (q === 'F8') r.claim.originalRef ??= value;
  else r.claim.refs.push({ qualifier: q, value, seg });
}

/** LQ*HE: a line's remark code. */
function readLq(r: ClaimReading, seg: Segment): void {
  if (r.line && num(seg.el[0]) === 'HE' && num(seg.el[1])) r.line.remarks.push({ code: num(seg.el[1]).toUpperCase(), seg });
}

/** MIA05 and MIA20-MIA23 are remark codes; MIA24, the PPS-capital exception amount, is not. */
const MIA_REMARKS = [4, 19, 20, 21, 22];
/** MOA03-MOA07 are remark codes. */
const MOA_REMARKS = [2, 3, 4, 5, 6];

/** MIA: inpatient adjudication, its amounts by their TR3 names and its remark codes. */
function readMia(r: ClaimReading, seg: Segment): void {
  r.claim.inpatient = inpatientOf(seg);
  for (const k of MIA_REMARKS) if (num(seg.el[k])) r.claim.remarks.push({ code: num(seg.el[k]).toUpperCase(), seg });
}

/** MOA: outpatient adjudication, its amounts by their TR3 names and its remark codes. */
function readMoa(r: ClaimReading, seg: Segment): void {
  r.claim.outpatient = outpatientOf(seg);
  for (const k of MOA_REMARKS) if (num(seg.el[k])) r.claim.remarks.push({ code: num(seg.el[k]).toUpperCase(), seg });
}

/** Each segment a claim (2100) or service line (2110) may carry, and its reader; others are passed over. */
export const CLAIM_SEGMENTS: Readonly<Record<string, SegmentReader>> = {
  SVC: readSvc,
  CAS: readCas,
  DTM: readDtm,
  NM1: readNm1,
  AMT: readAmt,
  QTY: readQty,
  REF: readRef,
  LQ: readLq,
  MIA: readMia,
  MOA: readMoa,
};

/** CLP: a claim's amounts, status, filing indicator, payer claim number, facility, frequency and DRG. */
export function readClp(seg: Segment): ClaimAcc {
  const drg = opt(seg.el[10]);
  return {
    seg,
    pcn: num(seg.el[0]),
    status: num(seg.el[1]),
    charged: money(seg.el[2], 'CLP03', true),
    paid: money(seg.el[3], 'CLP04', true),
    patient: money(seg.el[4], 'CLP05', true),
    filing: opt(seg.el[5]),
    icn: opt(seg.el[6]),
    facility: opt(seg.el[7]),
    frequency: opt(seg.el[8]),
    drg: drg ? { code: drg, weight: quantity(seg.el[11]), fraction: quantity(seg.el[12]) } : null,
    from: null,
    to: null,
    received: null,
    crossover: null,
    people: new Map(),
    originalRef: null,
    refs: [],
    amounts: [],
    quantities: [],
    inpatient: null,
    outpatient: null,
    adjs: [],
    remarks: [],
    lines: [],
  };
}

const INPATIENT_AMOUNTS: [number, string][] = [
  [1, 'pps_operating_outlier_amount'],
  [3, 'claim_drg_amount'],
  [5, 'claim_disproportionate_share_amount'],
  [6, 'claim_msp_pass_through_amount'],
  [7, 'claim_pps_capital_amount'],
  [8, 'pps_capital_fsp_drg_amount'],
  [9, 'pps_capital_hsp_drg_amount'],
  [10, 'pps_capital_dsh_drg_amount'],
  [11, 'old_capital_amount'],
  [12, 'pps_capital_ime_amount'],
  [13, 'pps_operating_hospital_specific_drg_amount'],
  [15, 'pps_operating_federal_specific_drg_amount'],
  [16, 'claim_pps_capital_outlier_amount'],
  [17, 'claim_indirect_teaching_amount'],
  [18, 'nonpayable_professional_component_amount'],
  [23, 'pps_capital_exception_amount'],
];

const cents = (d: Dec | null): number | null => (d === null ? null : toCents(d));

/** MIA's amounts and counts by their TR3 names (an unreadable amount makes the segment unreadable). */
function inpatientOf(seg: Segment): Record<string, number | null> {
  const out: Record<string, number | null> = { covered_days_or_visits: quantity(seg.el[0]), lifetime_psychiatric_days: quantity(seg.el[2]), cost_report_days: quantity(seg.el[14]) };
  for (const [k, name] of INPATIENT_AMOUNTS) out[name] = cents(moneyOrNull(seg.el[k], `MIA${String(k + 1).padStart(2, '0')}`));
  return out;
}

/** MOA's rate and amounts by their TR3 names. */
function outpatientOf(seg: Segment): Record<string, number | null> {
  return {
    reimbursement_rate: quantity(seg.el[0]),
    claim_hcpcs_payable_amount: cents(moneyOrNull(seg.el[1], 'MOA02')),
    claim_esrd_payment_amount: cents(moneyOrNull(seg.el[7], 'MOA08')),
    nonpayable_professional_component_amount: cents(moneyOrNull(seg.el[8], 'MOA09')),
  };
}

/** The TR3 name of a qualifier in one of the tables above (null for one it does not define there). */
export const meaningOf = (table: Readonly<Record<string, string>>, q: string): string | null => ownValue(table, q) ?? null;
