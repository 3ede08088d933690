import type { PayerKnowledge } from '../../../datasets/payers/queries.js';
import type { PayerRow } from '../../../datasets/payers/schema.js';
import { carcClassOf, type CarcClass } from '../../../lib/vocabulary/carc.js';
import { rarcMeaningOf, type RarcMeaning } from '../../../lib/vocabulary/rarc.js';
import type { SnapshotReader } from '../../../warehouse/snapshot.js';
import type { NcciSources } from '../../ncci/sources.js';
import { MEDICARE_FFS, policyPayer } from '../../policies/service.js';
import type { Trace } from '../../trace.js';
import type { RemitClaim, RemitLine, RemitTransaction } from '../schemas.js';
import { coverageLink } from './coverage.js';
import { aocLink, mueLink, othersOnDate, ptpLink, sourcesFor } from './ncci.js';
import { Pricer } from './pricing.js';
import { dosOf, hcpcsOf, PROGRESS_EVERY, settingOf, type PayeeLocation, type Progress } from './shared.js';

export type { PayeeLocation, Progress } from './shared.js';

/** What a link of one line reads: the line, its claim and transaction, the claim's NCCI sources, the call's pricer and memo. */
export interface LineContext {
  snapshot: SnapshotReader;
  trace: Trace;
  tx: RemitTransaction;
  claim: RemitClaim;
  line: RemitLine;
  code: string;
  dos: string | null;
  sources: NcciSources;
  program: 'medicare' | 'medicaid' | null;
  setting: 'prac' | 'hosp';
  txPayer: PayerRow | null;
  pricer: Pricer;
  /** Each distinct lookup once per call, its answer shared (the answer is read-only from here on). */
  memo<T>(link: LinkId, key: string, make: () => Promise<T>): Promise<T>;
}

/** The answer field a link sets on a line. */
type LineField = 'ncci' | 'mue' | 'coverage' | 'pricing';

/**
 * One link, declared once: what triggers it (the classes of `lib/vocabulary/carc.ts` among the
 * line's CARCs, the meanings of `lib/vocabulary/rarc.ts` among its remarks, else the claim's; or
 * every HCPCS line), the field it answers, and its lookup, which may leave the field unset.
 * A link whose field an earlier link already set is passed over (an add-on edit is looked for
 * only when no PTP edit was).
 */
export interface LinkDef {
  id: LinkId;
  field: LineField;
  triggers: { carcClasses: readonly CarcClass[]; rarcMeanings: readonly RarcMeaning[] } | 'every_hcpcs_line';
  /** The lookup needs a date of service (the NCCI editions and coverage documents are dated). */
  needsDate: boolean;
  link(c: LineContext): Promise<RemitLine[LineField] | undefined>;
}

const LINK_IDS = ['ncci_ptp', 'ncci_aoc', 'mue', 'coverage', 'pricing'] as const;
export type LinkId = (typeof LINK_IDS)[number];

/** Every link of a remittance line, in the order they are looked up. */
export const LINKS: readonly LinkDef[] = [
  {
    id: 'ncci_ptp',
    field: 'ncci',
    triggers: { carcClasses: ['bundling'], rarcMeanings: ['bundled'] },
    needsDate: true,
    link: (c) => {
      const others = othersOnDate(c.claim, c.line, c.code, c.dos!);
      return c.memo('ncci_ptp', `${c.sources.ptp}|${c.code}|${c.dos}|${others.join(',')}`, () => ptpLink(c.snapshot, c.sources, others, c.code, c.dos!, c.trace));
    },
  },
  {
    id: 'ncci_aoc',
    field: 'ncci',
    triggers: { carcClasses: ['add_on'], rarcMeanings: ['add_on_alone'] },
    needsDate: true,
    link: async (c) => (await aocLink(c.snapshot, c.sources, c.claim, c.code, c.dos!, c.trace)) ?? undefined,
  },
  {
    id: 'mue',
    field: 'mue',
    triggers: { carcClasses: ['units'], rarcMeanings: ['units_exceeded'] },
    needsDate: true,
    link: (c) => mueLink(c.snapshot, c.sources, c.line, c.code, c.dos!, c.trace),
  },
  {
    id: 'coverage',
    field: 'coverage',
    triggers: { carcClasses: ['coverage'], rarcMeanings: [] },
    needsDate: true,
    link: (c) => {
      // The payer's documents: the mapped payer's, else Medicare's for a Medicare claim.
      const payer = c.txPayer ? policyPayer(c.txPayer) : c.program === 'medicare' ? { slug: MEDICARE_FFS, medicare: true } : null;
      const npi = c.tx.payee.npi;
      return c.memo('coverage', `${payer?.slug ?? ''}|${c.code}|${c.dos}|${npi ?? ''}`, () => c.pricer.payeeState(npi).then((at) => coverageLink(c.snapshot, payer, c.code, c.dos!, at, c.trace)));
    },
  },
  {
    id: 'pricing',
    field: 'pricing',
    triggers: 'every_hcpcs_line',
    needsDate: false,
    link: async (c) => c.pricer.price(c.tx.payee.npi, c.claim, c.line, c.code, c.setting),
  },
];

/** Whether a line's adjustments and remarks trigger a link. */
function triggered(l: LinkDef, carcs: ReadonlySet<string>, rarcs: ReadonlySet<string>): boolean {
  if (l.triggers === 'every_hcpcs_line') return true;
  const t = l.triggers;
  return [...carcs].some((c) => t.carcClasses.includes(carcClassOf(c)!)) || [...rarcs].some((r) => t.rarcMeanings.includes(rarcMeaningOf(r)!));
}

/**
 * The per-line links of an explained 835, claim by claim as the explanation reads them: each
 * line's `LINKS` in order, where they apply (a field is set only then); then, on an outpatient
 * claim, a comprehensive APC's packaging of its other lines. Every dataset read is recorded on
 * `trace`.
 */
export class Linker {
  private readonly pricer: Pricer;
  private readonly memos = new Map<LinkId, Map<string, Promise<unknown>>>(LINK_IDS.map((id) => [id, new Map()]));
  private done = 0;

  constructor(
    private readonly snapshot: SnapshotReader,
    private readonly payers: PayerKnowledge | null,
    where: PayeeLocation,
    private readonly trace: Trace,
    /** The file's claim count and a listener told every `PROGRESS_EVERY` claims. */
    private readonly progress?: { total: number; tell: Progress },
  ) {
    this.pricer = new Pricer(snapshot, where, trace);
  }

  /** A ccn or locality that names nothing is the caller's mistake: 422 before any line is linked. */
  check(): Promise<void> {
    return this.pricer.checkQuery();
  }

  private memo<T>(link: LinkId, key: string, make: () => Promise<T>): Promise<T> {
    const m = this.memos.get(link)!;
    let p = m.get(key) as Promise<T> | undefined;
    if (!p) m.set(key, (p = make()));
    return p;
  }

  /** Sets each line's `ncci`, `mue`, `coverage` and `pricing` where they apply. */
  async link(tx: RemitTransaction, claim: RemitClaim): Promise<void> {
    if (this.progress && ++this.done % PROGRESS_EVERY === 0) this.progress.tell(this.done, this.progress.total);
    const txPayer = tx.payer.slug ? (this.payers?.payers.get(tx.payer.slug) ?? null) : null;
    const fi = claim.claim_filing_indicator;
    const program = fi === 'MC' ? 'medicaid' : fi === 'MA' || fi === 'MB' ? 'medicare' : null;
    const setting = settingOf(claim);
    const sources = sourcesFor(program, txPayer, this.payers, setting);
    const memo = <T>(link: LinkId, key: string, make: () => Promise<T>) => this.memo(link, key, make);
    for (const line of claim.lines) {
      const code = hcpcsOf(line);
      if (!code) continue;
      const carcs = new Set(line.adjustments.map((a) => a.reason.toUpperCase()));
      // The line's remarks, else the claim's (MOA/MIA), as the explanation reads them.
      const rarcs = new Set((line.remarks.length ? line.remarks : claim.remarks).map((r) => r.code));
      const c: LineContext = { snapshot: this.snapshot, trace: this.trace, tx, claim, line, code, dos: dosOf(claim, line), sources, program, setting, txPayer, pricer: this.pricer, memo };
      for (const l of LINKS) {
        if (line[l.field] !== undefined || (l.needsDate && !c.dos) || !triggered(l, carcs, rarcs)) continue;
        const value = await l.link(c);
        if (value !== undefined) (line as Record<LineField, unknown>)[l.field] = value;
      }
    }
    if (setting === 'hosp') await this.pricer.packageComprehensiveApc(claim);
  }

  /** Says on the trace what the pricing fell back on. */
  finish(): void {
    this.pricer.finish();
  }
}
