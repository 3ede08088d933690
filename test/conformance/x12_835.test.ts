import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { x12Codes } from '../../datasets/x12_codes/dataset.js';
import type { X12Index } from '../../datasets/x12_codes/queries.js';
import { CARC_CLASS } from '../../lib/vocabulary/carc.js';
import { explainRemittance } from '../../server/remittances/explain.js';
import { readX12 } from '../../server/remittances/x12.js';
import { parseAll } from '../../testing/datasets.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// shared/data/x12-835 (2026-11-27): 10 public sample 835s and 5 acknowledgments (999, 277CA),
// their quirks in its SOURCE.md; the full CARC/RARC lists of shared/data/x12-codes describe them.
const CODES = ['claim-adjustment-reason-codes.csv', 'remittance-advice-remark-codes.csv', 'group-codes.csv'].map((f) => `x12-codes/${f}`);
const present = requireShared('x12-835/835', 'x12-835/ack', ...CODES);
const at = (rel: string) => join(sharedDataDir(), rel);
const files = (dir: string) => (present ? readdirSync(at(`x12-835/${dir}`)).sort() : []);

/** What the raw text holds, counted independently of the reader: CLP and SVC segments and CAS triplets. */
function counted(text: string): { claims: number; lines: number; adjustments: number } {
  const t = text.replace(/^\uFEFF/, '');
  const isa = t.indexOf('ISA');
  const el = isa >= 0 ? t[isa + 3]! : '*';
  let claims = 0;
  let lines = 0;
  let adjustments = 0;
  for (const raw of t.slice(Math.max(isa, 0)).split(/[~\r\n]+/)) {
    const e = raw.trim().split(el);
    if (e[0] === 'CLP') claims++;
    else if (e[0] === 'SVC') lines++;
    else if (e[0] === 'CAS') for (let k = 2; k < e.length; k += 3) if (e[k]?.trim()) adjustments++;
  }
  return { claims, lines, adjustments };
}

/** The money in the raw text, in cents, read apart from the service's reader: CLP04, CAS amounts, PLB amounts, BPR02 signed by BPR03. */
function rawMoney(text: string): { claims: number; clp04: number; cas: number; plb: number; bpr: number } {
  const t = text.replace(/^\uFEFF/, '');
  const isa = t.indexOf('ISA');
  const el = isa >= 0 ? t[isa + 3]! : '*';
  const c = (s: string | undefined) => Math.round(Number((s ?? '').trim() || 0) * 100);
  const out = { claims: 0, clp04: 0, cas: 0, plb: 0, bpr: 0 };
  for (const line of t.slice(Math.max(isa, 0)).split(/[~\r\n]+/)) {
    const e = line.trim().split(el);
    if (e[0] === 'CLP') {
      out.claims++;
      out.clp04 += c(e[4]);
    } else if (e[0] === 'CAS') for (let k = 3; k < e.length; k += 3) out.cas += c(e[k]);
    else if (e[0] === 'PLB') for (let k = 4; k < e.length; k += 2) out.plb += c(e[k]);
    else if (e[0] === 'BPR') out.bpr += (e[3]?.trim() === 'D' ? -1 : 1) * c(e[2]);
  }
  return out;
}

describe.skipIf(!present)('X12 835 explained on the shared sample files (shared/data/x12-835)', () => {
  let t: TestServer;
  let x12: X12Index;
  beforeAll(async () => {
    const { rows, rejects } = await parseAll(x12Codes, CODES.map(at));
    expect(rejects).toEqual([]);
    x12 = { version: 'shared', byKey: new Map(rows.map((r) => [`${r.list}:${r.code}`, r])), count: rows.length };
    t = await startTestServer();
  });
  afterAll(() => t?.close());

  it('reads the 10 sample 835s', () => {
    expect(files('835')).toHaveLength(10);
    expect(files('ack')).toHaveLength(5);
  });

  it.each(files('835'))('%s: every claim, line and adjustment present, each adjustment and remark described', async (name) => {
    const text = readFileSync(at(`x12-835/835/${name}`));
    const e = await explainRemittance(readX12(text), { x12, payers: null, mac: null, asOf: '2026-11-27' });
    const want = counted(text.toString('utf8'));
    expect(e.summary).toMatchObject({ claims: want.claims, service_lines: want.lines, adjustments: want.adjustments });
    const claims = e.transactions.flatMap((x) => x.claims);
    expect(claims).toHaveLength(want.claims);
    for (const c of claims) {
      expect(c.status.meaning).not.toBe('unknown claim status code');
      for (const a of [...c.adjustments, ...c.lines.flatMap((l) => l.adjustments)]) {
        expect(a.description, `${name}: ${a.group}-${a.reason}`).toEqual(expect.any(String));
        expect(typeof a.deactivated).toBe('boolean');
        expect(a.remedy).toEqual(expect.any(String));
      }
      for (const r of [...c.remarks, ...c.lines.flatMap((l) => l.remarks)]) expect(r.description, `${name}: ${r.code}`).toEqual(expect.any(String));
    }
    expect(e.findings.filter((f) => f.code === 'unknown_code' || f.code === 'unparseable_segment')).toEqual([]);
  });

  it.each(files('835'))('%s: no contractual reduction, reversal line, zero or negative amount is on the worklist as an appeal', async (name) => {
    const r = await t.request('/v1/remittances/explain?as_of=2026-11-27', { method: 'POST', body: readFileSync(at(`x12-835/835/${name}`)), headers: { 'Content-Type': 'application/edi-x12' } });
    expect(r.status).toBe(200);
    type Adj = { group: string; reason: string; amount: number; remedy: string };
    for (const c of r.body.transactions.flatMap((x: { claims: unknown[] }) => x.claims) as { status: { code: string }; adjustments: Adj[]; lines: { adjustments: Adj[] }[] }[]) {
      for (const a of [...c.adjustments, ...c.lines.flatMap((l) => l.adjustments)]) {
        const why = `${name}: ${a.group}-${a.reason} ${a.amount} (CLP02 ${c.status.code})`;
        if (a.amount <= 0 || c.status.code === '22') expect(a.remedy, why).toBe('no_action');
        if (['contractual', 'pricing', 'sequestration'].includes(CARC_CLASS[a.reason] ?? '')) expect(a.remedy, why).not.toBe('appeal');
      }
    }
    for (const w of r.body.worklist) {
      expect(w.remedy, `${name}: ${w.group}-${w.reason}`).not.toBe('no_action');
      if (w.remedy === 'appeal') expect(w.amount).toBeGreaterThan(0);
    }
  });

  it.each(files('835'))('%s: the posting file posts: one claim row per CLP, adjustment rows summing to the CAS amounts, payments less provider adjustments equal to BPR02 signed by BPR03', async (name) => {
    const text = readFileSync(at(`x12-835/835/${name}`));
    const r = await t.request('/v1/remittances/explain?as_of=2026-11-27&format=posting-csv', { method: 'POST', body: text, headers: { 'Content-Type': 'application/edi-x12' } });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const rows: Record<string, string>[] = parse(r.text, { columns: true });
    const raw = rawMoney(text.toString('utf8'));
    const cents = (xs: string[]) => xs.reduce((a, x) => a + Math.round(Number(x || 0) * 100), 0);
    expect(rows.filter((x) => x.level === 'claim')).toHaveLength(raw.claims);
    expect(cents(rows.filter((x) => x.level === 'adjustment').map((x) => x.amount!))).toBe(raw.cas);
    const paid = cents(rows.filter((x) => x.level === 'claim').map((x) => x.paid!));
    const plb = cents(rows.filter((x) => x.level === 'provider_adjustment').map((x) => x.amount!));
    expect([paid, plb]).toEqual([raw.clp04, raw.plb]);
    // Where the file balances, the posting file reproduces its payment; where it does not (OopFactory's), the explanation says so.
    if (raw.bpr === raw.clp04 - raw.plb) expect(paid - plb).toBe(raw.bpr);
    else {
      const json = await t.request('/v1/remittances/explain?as_of=2026-11-27', { method: 'POST', body: text, headers: { 'Content-Type': 'application/edi-x12' } });
      expect(json.body.findings.map((f: { code: string }) => f.code)).toContain('transaction_unbalanced');
    }
  });

  it('has a class for every CARC of the X12 list, current and deactivated (lib/vocabulary/carc.ts)', async () => {
    const { rows } = await parseAll(x12Codes, CODES.map(at));
    const carcs = rows.filter((r) => r.list === 'carc').map((r) => r.code);
    expect(carcs.length).toBe(407);
    expect(carcs.filter((c) => !Object.hasOwn(CARC_CLASS, c))).toEqual([]);
  });

  it('explains the quirks SOURCE.md names: PLB netted (Part A), PLB not netted (OopFactory), > components, SVC06, no envelope, prose before ISA', async () => {
    const of = (name: string) => explainRemittance(readX12(readFileSync(at(`x12-835/835/${name}`))), { x12, payers: null, mac: null, asOf: '2026-11-27' });
    const partA = await of('lfh__medicare-part-a.835');
    expect(partA.transactions[0]!.provider_adjustments).toEqual([expect.objectContaining({ reason: 'CV', description: 'capital passthru', amount: -1.27 })]);
    expect(partA.findings.map((f) => f.code)).not.toContain('transaction_unbalanced');
    expect((await of('oopfactory__5010_Example1.txt')).findings.map((f) => f.code)).toContain('transaction_unbalanced');
    const secondary = await of('lfh__secondary-payment.835');
    expect(secondary.findings.map((f) => f.code)).toContain('component_separator_mismatch');
    expect(secondary.transactions[0]!.claims.flatMap((c) => c.lines).some((l) => l.modifiers.includes('26'))).toBe(true);
    const bcnc = await of('edi835parser__blue_cross_nc_sample.txt');
    expect(bcnc.transactions[0]!.claims[0]!.lines[0]).toMatchObject({ code: '59430', original_code: '59410', allowed: 1175.4, allowed_source: 'amt_b6' });
    expect((await of('stupidedi__x221-case-1.edi')).summary.claims).toBe(2);
  });

  it.each(files('835'))('%s: 200 through the route', async (name) => {
    const r = await t.request('/v1/remittances/explain?as_of=2026-11-27', { method: 'POST', body: readFileSync(at(`x12-835/835/${name}`)), headers: { 'Content-Type': 'application/edi-x12' } });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    // The per-line links: pricing on every HCPCS line (not_priced always with its reason), ncci and mue only where a denial calls for them.
    type Line = { code: string | null; code_qualifier: string | null; adjustments: { reason: string }[]; remarks: { code: string }[]; ncci?: unknown; mue?: unknown; pricing?: { status: string; reason?: string } };
    const lines: Line[] = r.body.transactions.flatMap((x: { claims: { lines: Line[] }[] }) => x.claims.flatMap((c) => c.lines));
    for (const l of lines) {
      if (l.code && (l.code_qualifier === 'HC' || l.code_qualifier === null)) {
        expect(['as_expected', 'underpaid', 'overpaid', 'not_priced']).toContain(l.pricing?.status);
        expect(l.pricing!.status === 'not_priced').toBe(l.pricing!.reason !== undefined);
      } else expect(l.pricing).toBeUndefined();
      const carcs = l.adjustments.map((a) => a.reason);
      if (l.ncci) expect(carcs.some((c) => ['bundling', 'add_on'].includes(CARC_CLASS[c] ?? '')) || r.text.includes('M80') || r.text.includes('N20')).toBe(true);
      if (l.mue) expect(carcs.some((c) => CARC_CLASS[c] === 'units') || r.text.includes('N362')).toBe(true);
    }
  });

  it('fills every field of the answer on the samples at least once, but the links no sample calls for', async () => {
    // Paths (arrays as []) with a non-null, non-empty value in some sample's answer.
    const filled = new Set<string>();
    const walk = (v: unknown, path: string) => {
      if (v === null || v === undefined || v === '') return;
      if (Array.isArray(v)) {
        if (v.length) filled.add(path);
        for (const x of v) walk(x, `${path}[]`);
      } else if (typeof v === 'object') {
        filled.add(path);
        for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
      } else filled.add(path);
    };
    for (const name of files('835')) {
      const r = await t.request('/v1/remittances/explain?as_of=2026-11-27&locality=1320201', { method: 'POST', body: readFileSync(at(`x12-835/835/${name}`)), headers: { 'Content-Type': 'application/edi-x12' } });
      walk(r.body, '');
    }
    const T = '.transactions[]';
    const C = `${T}.claims[]`;
    const L = `${C}.lines[]`;
    const adjustment = ['group', 'reason', 'amount', 'description', 'deactivated', 'responsibility', 'remedy', 'remedy_reason', 'appeal_rights', 'rule_id', 'citations'];
    const want = [
      ...['interchanges', 'transactions', 'claims', 'service_lines', 'adjustments', 'findings', 'totals.charged', 'totals.paid', 'totals.patient_responsibility', 'totals.adjusted_by_group'].map((k) => `.summary.${k}`),
      ...['payer.name', 'payer.id', 'payer.slug', 'payee.name', 'payee.npi', 'payee.tin', 'payee.id_qualifier', 'payment.handling.code', 'payment.method', 'payment.amount', 'payment.date', 'payment.trace_number', 'payment.originating_company_id', 'remittance_date', 'version'].map((k) => `${T}.${k}`),
      ...['payment', 'direction', 'claims_paid', 'provider_adjustments[].effect', 'expected_payment', 'explanation'].map((k) => `${T}.reconciliation.${k}`),
      ...['patient.name', 'patient.id', 'member_id', 'rendering_provider.name', 'original_reference', 'claim_frequency', 'amounts[].qualifier', 'amounts[].meaning', 'quantities[].quantity', 'references[].value'].map((k) => `${C}.${k}`),
      ...['reason', 'description', 'reference', 'amount', 'fiscal_period_date', 'provider_id'].map((k) => `${T}.provider_adjustments[].${k}`),
      ...['patient_control_number', 'status.code', 'status.meaning', 'charged', 'paid', 'patient_responsibility', 'claim_filing_indicator', 'payer_claim_control_number', 'statement_from', 'statement_to', 'received', 'remarks[].code', 'remarks[].description', 'remarks[].deactivated'].map((k) => `${C}.${k}`),
      ...adjustment.map((k) => `${C}.adjustments[].${k}`),
      ...['code', 'modifiers', 'units', 'charged', 'paid', 'allowed', 'allowed_source', 'original_code', 'service_from', 'service_to', 'control_number', 'remarks[].code', 'remarks[].description', 'pricing.status', 'pricing.reason', 'pricing.reason_text', 'pricing.actual_allowed'].map((k) => `${L}.${k}`),
      // No sample has a dated remedy (their adjustments are write-offs, patient shares, or unmapped payers' denials):
      // deadlines are worked by hand in server/denials/rules.test.ts and server/remittances/links.int.test.ts.
      ...[...adjustment, 'quantity'].map((k) => `${L}.adjustments[].${k}`),
      ...['code', 'severity', 'message', 'loc.segment_index', 'loc.segment_id'].map((k) => `.findings[].${k}`),
      ...['payer', 'group', 'reason', 'remedy', 'count', 'amount'].map((k) => `.worklist[].${k}`),
    ];
    expect(want.filter((p) => !filled.has(p))).toEqual([]);
    // No sample is a Medicare Part B professional claim with a bundling, units or medical-necessity
    // denial: ncci, mue, coverage and a priced line are worked by hand in remittance_links.int.test.ts.
    expect([...filled].filter((p) => /\.(ncci|mue|coverage)$|pricing\.expected_allowed$/.test(p))).toEqual([]);
  });

  it.each(files('ack'))('%s: explained as the acknowledgment it is, never a 5xx', async (name) => {
    const r = await t.request('/v1/remittances/explain?as_of=2026-11-27', { method: 'POST', body: readFileSync(at(`x12-835/ack/${name}`)), headers: { 'Content-Type': 'application/edi-x12' } });
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.summary).toMatchObject({ transactions: 0, acknowledgments: 1 });
    const [a] = r.body.acknowledgments;
    expect(a.kind).toBe(name.includes('277CA') ? '277CA' : '999');
    type Remedy = { remedy: string; appeal_rights: string };
    const remedies: Remedy[] = a.kind === '999' ? a.transactions.map((x: { remedy: Remedy }) => x.remedy) : a.claims.map((x: { remedy: Remedy }) => x.remedy);
    expect(remedies.length).toBeGreaterThan(0);
    // Accepted: nothing to do; rejected: correct and resubmit, never an appeal.
    for (const m of remedies) expect([['no_action', 'no'], ['correct_and_resubmit', 'no']]).toContainEqual([m.remedy, m.appeal_rights]);
    const rejected = remedies.filter((m) => m.remedy === 'correct_and_resubmit').length;
    // SOURCE.md: the accepted files accept, the rejected 999 rejects its one 837, Wisconsin's rejects 2 of 3, the rejected 277CA is A7.
    expect(rejected).toBe({ imsweb__x12_999_rejected: 1, oopfactory__999_DHS_Wisconsin_Sample: 2, imsweb__x12_277CA_rejected: 1 }[name.replace(/\.txt$/, '')] ?? 0);
    if (name === 'imsweb__x12_277CA_rejected.txt') expect(a.claims[0].statuses[0]).toMatchObject({ category: 'A7', status_code: '562', entity: '85' });
  });
});
