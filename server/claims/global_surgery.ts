import { addDays } from '../../datasets/_shared/dates.js';
import { selectVersion } from '../../datasets/_shared/versions.js';
import { mpfsRvu } from '../../datasets/mpfs_rvu/dataset.js';
import { findRvuRows } from '../../datasets/mpfs_rvu/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { isEmCode } from '../ncci/modifiers.js';
import { patientKey } from './checks.js';
import { predicted, type FindingContext } from './findings.js';
import type { Claim } from './model.js';
import type { ClaimsCheck } from './schemas.js';

/**
 * The global surgery period across the file's claims (Medicare Claims Processing Manual ch. 12,
 * sections 40.1-40.4): a procedure with 10 or 90 global days includes the same provider's E/M
 * visits in its period, unless a modifier says the visit is outside the package: 57 for the
 * decision for surgery (the day before or the day of a major, 90-day, procedure), 25 for a
 * significant, separately identifiable visit on the day of a minor (10-day) procedure, 24 for an
 * unrelated visit after it. A visit inside the period without its modifier is denied CO-97 with
 * M144. The periods come from the RVU file's GLOB DAYS of the release in force on the
 * procedure's date (a year no release covers decides nothing). Visits and procedures are kept per
 * patient and provider as claims stream by, and judged at the end of the file, in either order.
 */

interface Service {
  pcn: string;
  line: number;
  segment: number;
  code: string;
  date: string;
  modifiers: readonly string[];
  /** The claim's payer context (its remedy is dated by it). */
  c: FindingContext;
}

/** Same patient (member id, name, birth date) and the same rendering (else billing) provider. */
const whose = (claim: Claim): string => `${patientKey(claim)}|${claim.rendering_provider?.npi ?? claim.billing_provider?.npi ?? ''}`;

/** The list of `key` in `map`, made on first use (services are pushed as the file streams by). */
const listOf = <T>(map: Map<string, T[]>, key: string): T[] => {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
};

export class GlobalPeriods {
  private readonly procedures = new Map<string, (Service & { days: 10 | 90 })[]>();
  private readonly visits = new Map<string, Service[]>();
  private readonly days = new Map<string, Promise<10 | 90 | null>>();

  constructor(private readonly snapshot: SnapshotReader) {}

  /** The global days of a code in the RVU release in force on the date: 10, 90, or null (none, another indicator, or no release in force). */
  private globalDays(code: string, date: string): Promise<10 | 90 | null> {
    const key = `${code}|${date.slice(0, 4)}`;
    let p = this.days.get(key);
    if (!p) {
      p = (async () => {
        const pick = selectVersion(mpfsRvu.id, this.snapshot.versions(mpfsRvu.id), { rule: 'year', date });
        if (!pick?.covered) return null;
        const row = (await findRvuRows(this.snapshot, code)).find((r) => r.version === pick.version.version && r.modifier === '');
        return row?.global_days === '090' ? 90 : row?.global_days === '010' ? 10 : null;
      })();
      this.days.set(key, p);
    }
    return p;
  }

  /** Keeps the claim's Medicare E/M visits and 10- or 90-day procedures. */
  async add(c: FindingContext, claim: Claim, dateOf: (l: Claim['lines'][number]) => string | null): Promise<void> {
    if (c.payer.type !== 'medicare' || claim.kind !== 'professional' || claim.frequency === '8') return;
    const who = whose(claim);
    for (const l of claim.lines) {
      const date = dateOf(l);
      if (!l.code || !date) continue;
      const s = { pcn: claim.patient_control_number, line: l.line_number, segment: l.segment, code: l.code, date, modifiers: l.modifiers, c };
      if (isEmCode(l.code)) {
        listOf(this.visits, who).push(s);
        continue;
      }
      const days = await this.globalDays(l.code, date);
      if (days) listOf(this.procedures, who).push({ ...s, days });
    }
  }

  /** Each visit inside a procedure's global period without the modifier that takes it out. */
  findings(): ClaimsCheck['cross_claim_findings'] {
    const out: ClaimsCheck['cross_claim_findings'] = [];
    for (const [who, procedures] of this.procedures) {
      for (const v of this.visits.get(who) ?? []) {
        for (const p of procedures) {
          const why = outsideWithout(p, v);
          if (!why) continue;
          const f = predicted(v.c, 'global_surgery', { message: `${v.code} on ${v.date} (claim ${v.pcn} line ${v.line}) is inside the ${p.days}-day global period of ${p.code} on ${p.date} (claim ${p.pcn} line ${p.line}) by the same provider: ${why}`, segment: v.segment, facts: { dateOfService: v.date, modifiers: v.modifiers } });
          out.push({ kind: 'global_surgery', status: 'fail', message: f.message, fix: f.fix!, if_sent: f.if_sent!, citations: f.citations, claims: [p, v].map((x) => ({ patient_control_number: x.pcn, line_number: x.line, segment: x.segment })) });
          break;
        }
      }
    }
    return out;
  }
}

/** Why a visit falls in a procedure's package (the modifier it lacks), or null when it does not. */
function outsideWithout(p: Service & { days: 10 | 90 }, v: Service): string | null {
  const has = (m: string) => v.modifiers.includes(m);
  if (p.days === 90 && (v.date === p.date || v.date === addDays(p.date, -1))) return has('57') || has('25') ? null : 'a visit the day before or the day of a major procedure is part of it unless it is the decision for surgery (57)';
  if (v.date === p.date) return has('25') || has('57') ? null : 'a visit on the day of a minor procedure is part of it unless it is significant and separately identifiable (25)';
  if (v.date > p.date && v.date <= addDays(p.date, p.days)) return has('24') ? null : 'a visit after the procedure inside its period is post-operative care unless it is unrelated (24)';
  return null;
}
