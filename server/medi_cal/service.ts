import { aprDrgCodes } from '../../datasets/apr_drg_codes/dataset.js';
import { aprDrgCodeList } from '../../datasets/apr_drg_codes/queries.js';
import { aprDrgTable } from '../../datasets/medi_cal_apr_drg/queries.js';
import type { MediCalAprDrgRow } from '../../datasets/medi_cal_apr_drg/dataset.js';
import { hospitalTable } from '../../datasets/medi_cal_hospitals/queries.js';
import type { MediCalHospitalRow } from '../../datasets/medi_cal_hospitals/dataset.js';
import { drgPolicy, type DrgPolicy } from '../../datasets/medi_cal_drg_policy/queries.js';
import { MEDI_CAL_DRG_DATASETS } from '../../datasets/_medi_cal/years.js';
import { NotFoundError } from '../../warehouse/errors.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { priceAprDrg, STILL_A_PATIENT, type AprDrgCalculation } from './calculate.js';
import type { AprDrgBody, AprDrgPayment } from './schemas.js';

/** The fiscal year a request is priced in, as the route's `resolve` step found it. */
export interface FiscalYearPick {
  fiscal_year: string | null;
  source: 'discharge_date' | 'latest_loaded';
}

/** Positions at which two equally long ids differ (a mistyped digit is one). */
const differences = (a: string, b: string) => [...a].reduce((n, ch, i) => n + (ch === b[i] ? 0 : 1), Math.abs(a.length - b.length));

/** The DRG-SOI row, or a 404 suggesting the DRG's other SOIs or the nearest DRG numbers. */
function getDrg(table: Map<string, MediCalAprDrgRow>, drg: string, soi: number, fiscalYear: string): MediCalAprDrgRow {
  const row = table.get(`${drg}-${soi}`);
  if (row) return row;
  const rows = [...table.values()];
  const sameDrg = rows.filter((r) => r.apr_drg === drg);
  const near = (sameDrg.length ? sameDrg : rows.sort((a, b) => Math.abs(Number(a.apr_drg) - Number(drg)) - Math.abs(Number(b.apr_drg) - Number(drg)) || a.soi - b.soi)).slice(0, 3);
  const what = sameDrg.length ? `APR-DRG ${drg} has no SOI ${soi}` : `APR-DRG ${drg} is not`;
  throw new NotFoundError(`${what} in the SFY ${fiscalYear} APR-DRG table${near.length ? `; did you mean ${near.map((r) => r.drg_soi).join(', ')}?` : ''}`, {
    suggestions: near.map((r) => ({ drg_soi: r.drg_soi, description: r.description })),
  });
}

/** The hospital's row, or a 404 suggesting the ids that differ from it in the fewest digits. */
function getHospital(table: Map<string, MediCalHospitalRow>, id: string, fiscalYear: string): MediCalHospitalRow {
  const row = table.get(id);
  if (row) return row;
  const near = [...table.values()].sort((a, b) => differences(a.oshpd_id, id) - differences(b.oshpd_id, id) || a.oshpd_id.localeCompare(b.oshpd_id)).slice(0, 3);
  throw new NotFoundError(`no hospital with OSHPD id ${id} in the SFY ${fiscalYear} hospital list${near.length ? `; did you mean ${near.map((h) => h.oshpd_id).join(', ')}?` : ''}`, {
    suggestions: near.map((h) => ({ oshpd_id: h.oshpd_id, provider_name: h.provider_name })),
  });
}

/**
 * The APR-DRG's description from the APR-DRG code list (apr_drg_codes) in force on the discharge
 * date, cited with its version; null with a warning when the list is not loaded or lacks the DRG,
 * never an error: the price comes from DHCS's table, the name is a cross-check.
 */
export async function aprDrgNameOf(snapshot: SnapshotReader, drg: string, date: string | undefined, trace: Trace): Promise<AprDrgPayment['apr_drg_name']> {
  const list = await aprDrgCodeList(snapshot, date);
  if (!list) {
    trace.warn('apr_drg_codes is not loaded: the APR-DRG code list does not name the DRG (rcm ingest apr_drg_codes)');
    return null;
  }
  const source = trace.cite(aprDrgCodes.id, list.version);
  if (!list.covered && list.warning) trace.warn(list.warning);
  const row = list.codes.get(drg);
  if (!row) {
    trace.warn(`APR-DRG ${drg} is not in the APR-DRG code list ${list.version} (apr_drg_codes): its description there is not known`);
    return null;
  }
  return { apr_drg: row.drg, description: row.description, medical_surgical: row.medical_surgical, mdc: row.mdc, source };
}

/** What a biller should know about this price (limits of the method and of the inputs used). */
function caveatsOf(body: AprDrgBody, fy: FiscalYearPick, c: AprDrgCalculation, hospital: MediCalHospitalRow, policy: DrgPolicy): string[] {
  const out = ['Prices an already-grouped APR-DRG and SOI: it does not group diagnoses or procedures.'];
  if (fy.source === 'latest_loaded') out.push(`No discharge_date: priced with the latest loaded fiscal year's tables (SFY ${fy.fiscal_year}).`);
  if (hospital.dph) out.push('Designated public hospital: Medi-Cal pays DPH inpatient stays at an interim per diem with cost settlement, not by DRG; this DRG price is for reference.');
  if (c.transfer_applies) out.push(`Discharge status ${body.discharge_status} is a transfer: paid the lesser of the per diem x (length of stay + 1) and the DRG base payment.`);
  if (c.interim_claim_applies) {
    out.push(
      `Length of stay ${body.length_of_stay} exceeds the interim claim threshold (${policy.parameters.interim_claim_threshold} days) and no discharge status says the patient left: priced as an interim claim at the per diem (the DRG amount it replaces is drg_payment_so_far). Send discharge_status to price the final claim by DRG.`,
    );
  } else if (body.length_of_stay > policy.parameters.interim_claim_threshold && body.discharge_status !== STILL_A_PATIENT) {
    out.push(`Discharge status ${body.discharge_status} is a discharge: priced as the final claim by DRG; interim claims paid for this stay are recouped against it.`);
  }
  if (c.policy_adjustor_code === 'none') out.push(`No row of the policy adjustor table matches (${c.age_group}, care category ${c.care_category}, designated NICU ${c.designated_nicu ? 'Y' : 'N'}): policy adjustor 1.`);
  if (body.wage_adjusted_base_rate !== undefined) out.push(`wage_adjusted_base_rate ${body.wage_adjusted_base_rate} from the request replaces the computed ${c.computed_drg_base_rate}.`);
  else if (Math.abs(c.computed_drg_base_rate - hospital.wage_adjusted_base_rate) >= 0.005) {
    out.push(`The hospital list publishes a wage-adjusted base rate of ${hospital.wage_adjusted_base_rate}; the policy and wage index give ${c.computed_drg_base_rate}, which was used (send wage_adjusted_base_rate to price with another).`);
  }
  if (body.cost_to_charge_ratio !== undefined) out.push(`cost_to_charge_ratio ${body.cost_to_charge_ratio} from the request replaces the hospital list's ${hospital.cost_to_charge_ratio}.`);
  if (body.designated_nicu !== undefined && body.designated_nicu !== hospital.designated_nicu) out.push(`designated_nicu ${body.designated_nicu} from the request replaces the hospital list's ${hospital.designated_nicu}.`);
  if (c.high_side_outlier_applies || c.low_side_outlier_applies) out.push('Outlier amounts are recalculated when the audited cost-to-charge ratio of the year differs from the filed one.');
  return out;
}

/**
 * Prices one stay with the fiscal year's three tables: looks up the DRG-SOI and the hospital
 * (404 with suggestions), runs the pure calculator, and records the versions used and any
 * illustrative table (degraded, with a warning naming it) on the trace.
 */
export async function priceStay(snapshot: SnapshotReader, body: AprDrgBody, fy: FiscalYearPick, trace: Trace): Promise<Omit<AprDrgPayment, 'reliability'>> {
  const year = fy.fiscal_year;
  if (!year) throw new NotFoundError(`no Medi-Cal APR-DRG tables are loaded: ingest a fiscal year of ${MEDI_CAL_DRG_DATASETS.join(', ')}`);
  const [drgs, hospitals, policy] = await Promise.all([aprDrgTable(snapshot, year), hospitalTable(snapshot, year), drgPolicy(snapshot, year)]);
  for (const d of MEDI_CAL_DRG_DATASETS) trace.use(d, year);
  if (!policy) throw new NotFoundError(`the SFY ${year} DRG policy is not loaded (dataset medi_cal_drg_policy)`);
  const drg = getDrg(drgs, body.apr_drg, body.soi, year);
  const hospital = getHospital(hospitals, body.oshpd_id, year);
  const aprDrgName = await aprDrgNameOf(snapshot, drg.apr_drg, body.discharge_date, trace);

  const illustrative = [...(drg.illustrative ? ['medi_cal_apr_drg'] : []), ...(hospital.illustrative ? ['medi_cal_hospitals'] : []), ...policy.illustrative];
  if (illustrative.length) {
    trace.degrade().warn(`computed from illustrative tables (${illustrative.join(', ')}): the repository's seeds keep DHCS's layout with invented figures; load the SFY ${year} DHCS sheets with rcm ingest before relying on an amount`);
  }

  const calculation = priceAprDrg(
    drg,
    hospital,
    { parameters: policy.parameters, adjustors: policy.adjustors, transfer_status_codes: policy.transfer_status_codes.map((t) => t.patient_status_code) },
    body,
    { cost_to_charge_ratio: body.cost_to_charge_ratio, designated_nicu: body.designated_nicu, wage_adjusted_base_rate: body.wage_adjusted_base_rate },
  );
  const p = policy.parameters;
  const { illustrative: _d, ...drgOut } = drg;
  const { illustrative: _h, ...hospitalOut } = hospital;
  return {
    allowed_amount: calculation.allowed_amount,
    payment_amount: calculation.payment_amount,
    total_base_payment: calculation.allowed_after_transfer_adjustment,
    fiscal_year: year,
    fiscal_year_source: fy.source,
    payer: 'medi_cal',
    discharge_date: body.discharge_date ?? null,
    caveats: caveatsOf(body, fy, calculation, hospital, policy),
    calculation,
    drg: drgOut,
    apr_drg_name: aprDrgName,
    hospital: { ...hospitalOut, overridden: (['cost_to_charge_ratio', 'designated_nicu', 'wage_adjusted_base_rate'] as const).filter((k) => body[k] !== undefined) },
    policy: {
      add_on_amount: p.add_on_amount,
      casemix_adjustment_factor: p.casemix_adjustment_factor,
      cost_outlier_threshold: p.cost_outlier_threshold,
      interim_claim_threshold: p.interim_claim_threshold,
      interim_per_diem_amount: p.interim_per_diem_amount,
      marginal_cost_percentage: p.marginal_cost_percentage,
      low_side_outlier_threshold: p.low_side_outlier_threshold,
      statewide_base_price: p.statewide_base_price,
      remote_rural_base_price: p.remote_rural_base_price,
      labor_share_low: p.labor_share_low,
      labor_share_high: p.labor_share_high,
      labor_share_wage_index_cutoff: p.labor_share_wage_index_cutoff,
      pediatric_age_cutoff: p.pediatric_age_cutoff,
      transfer_status_codes: policy.transfer_status_codes.map((t) => t.patient_status_code),
      sources: policy.sources,
    },
  };
}
