import { parse } from 'csv-parse/sync';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIO } from './main.js';
import { useSeededDir } from '../testing/harness.js';
import { remit835 } from '../testing/x12.js';

const dataDir = useSeededDir('rcm-remit-cli-');

async function rcm(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return rcmOn(false, ...args);
}

async function rcmOn(isTTY: boolean, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY, env: { RCM_DATA_DIR: dataDir() }, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  return { code: await main(args, io), ...o };
}

// A Medicare remittance of 2026-08-03: a visit (2025-12-01) with its contractual write-off and
// deductible, allowed 61 cents under the fee schedule; a debridement (2026-07-15) whose 97597 line is
// bundled into 11042 (CO-97, M80) by the seed's NCCI edit (modifier indicator 1): a reopening to add
// the modifier the record supports, within a year of the remittance (2026-08-03).
const MEDICARE = remit835(
  [
    'CLP*PCN001*1*150*80*20*MB*ICN0001*11',
    'SVC*HC:99213*150*80**1',
    'DTM*472*20251201',
    'CAS*CO*45*50',
    'CAS*PR*1*20',
    'CLP*PCN002*1*400*250*0*MB*ICN0002*11',
    'SVC*HC:11042*300*250**1',
    'DTM*472*20260715',
    'CAS*CO*45*50',
    'SVC*HC:97597*100*0**1',
    'DTM*472*20260715',
    'CAS*CO*97*100',
    'LQ*HE*M80',
  ],
  { bpr: '330', date: '20260803' },
);
const AT = ['--as-of', '2026-08-10', '--locality', '1320201'];

describe('rcm remit explain', () => {
  it('reads a remittance as a person reads it: claim by claim, a line per adjustment with its meaning and next step', async () => {
    const file = join(dataDir(), 'medicare.835');
    await writeFile(file, MEDICARE);
    const r = await rcm('remit', 'explain', file, ...AT);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('Claim PCN001 (payer claim ICN0001), patient not named: processed as primary; charged $150.00, paid $80.00, patient owes $20.00');
    // A write-off has no deadline (an appeal window beside it read as one).
    expect(r.out).toMatch(/CO-45 \$50\.00: Charge exceeds fee schedule.* -> contractual adjustment; the amount is the provider's/);
    expect(r.out).toMatch(/PR-1 \$20\.00: Deductible Amount -> bill patient; the amount is the patient's/);
    // 42 CFR 405.980(c)(1): 2026-08-03 + 1 year = 2027-08-03, 358 days after 2026-08-10.
    expect(r.out).toMatch(/CO-97 \$100\.00: .* -> reopen by 2027-08-03 \(358 days\); the amount is the provider's/);
    expect(r.out).toContain('NCCI: 97597 is column 2 of 11042 (modifier indicator 1)');
    // 3.1105 RVU x 32.3465 = 100.61 in Manhattan for 2025-12-01: allowed 100.00 is 0.61 under it.
    expect(r.out).toContain('Medicare fee schedule $100.61 in locality 1320201: underpaid by $0.61 -> reopen by 2027-08-03 (358 days); the amount stays with the payer');
    expect(r.out).toMatch(/remark M80: /);
    expect(r.out).toContain('Worklist: 4 items, earliest deadline first');
    expect(r.out).toContain('medicare_ffs CO-45 contractual adjustment: 2 items, $100.00');
    expect(r.out).toContain('Total: 2 claims, 3 lines, paid $330.00 of $550.00 charged');
  });

  it('prints the worklist as CSV and the API answer as JSON', async () => {
    const file = join(dataDir(), 'medicare2.835');
    await writeFile(file, MEDICARE);
    const csv = await rcm('remit', 'explain', file, '--format', 'csv', ...AT);
    const [head, ...rows] = csv.out.trim().split('\n');
    expect(head).toBe('file,source,payer,group,reason,remedy,count,amount,earliest_deadline');
    expect(rows).toContainEqual(`${file},835,medicare_ffs,CO,97,reopen,1,100.00,2027-08-03`);
    expect(rows).toContainEqual(`${file},underpayment,medicare_ffs,pricing,99213,reopen,1,0.61,2027-08-03`);
    const json = JSON.parse((await rcm('remit', 'explain', file, '--format', 'json', ...AT)).out);
    expect(json.summary).toMatchObject({ claims: 2, service_lines: 3, adjustments: 4 });
    expect(json.reliability.dataset_versions).toHaveProperty('x12_codes');
  });

  it('shows its progress through a large file on a terminal, and none when piped', async () => {
    // 2,500 claims of one paid visit each (80 paid, 50 CO-45, 20 PR-1).
    const claims = Array.from({ length: 2500 }, (_, i) => [`CLP*P${i}*1*150*80*20*MB*ICN${i}*11`, 'SVC*HC:99213*150*80**1', 'DTM*472*20251201', 'CAS*CO*45*50', 'CAS*PR*1*20']).flat();
    const file = join(dataDir(), 'large.835');
    await writeFile(file, remit835(claims, { bpr: String(80 * 2500), date: '20260803' }));
    const tty = await rcmOn(true, 'remit', 'explain', file, '--format', 'csv', ...AT);
    expect(tty.code, tty.err).toBe(0);
    expect(tty.err).toContain('explaining large.835: 1,000 of 2,500 claims');
    expect(tty.err).toContain('explaining large.835: 2,000 of 2,500 claims');
    expect(tty.err.endsWith('\r\x1b[2K')).toBe(true);
    // Each visit allowed 100.00 against 100.61: 2,500 underpaid lines, 0.61 each, first (they have a deadline).
    expect(tty.out).toBe(
      'file,source,payer,group,reason,remedy,count,amount,earliest_deadline\n' +
        `${file},underpayment,medicare_ffs,pricing,99213,reopen,2500,1525.00,2027-08-03\n${file},835,medicare_ffs,CO,45,contractual_adjustment,2500,125000.00,\n${file},835,medicare_ffs,PR,1,bill_patient,2500,50000.00,\n`,
    );
    const piped = await rcm('remit', 'explain', file, '--format', 'csv', ...AT);
    expect(piped.err).toBe('');
    expect(piped.out).toBe(tty.out);
  });

  it('exits 1 naming the file (never its contents) for one that is no 835', async () => {
    const file = join(dataDir(), 'not-an-835.txt');
    await writeFile(file, 'PATIENT JANE DOE, DOB 1950-01-01');
    const r = await rcm('remit', 'explain', file);
    expect(r.code).toBe(1);
    expect(r.err).toContain(file);
    expect(r.err).not.toContain('JANE DOE');
  });
});

describe('rcm remit explain: what it is given', () => {
  it('exits 1 with one line naming a missing file, never the system error', async () => {
    const missing = join(dataDir(), 'august', 'no-such.835');
    const r = await rcm('remit', 'explain', missing);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`rcm: ${missing}: file not found\n`);
    expect(r.out).toBe('');
  });

  it('refuses a file given by name that is no X12 (a CSV) with exit 1, naming it', async () => {
    const csv = join(dataDir(), 'worklist.csv');
    await writeFile(csv, 'file,source,payer\na.835,835,medicare_ffs\n');
    const r = await rcm('remit', 'explain', csv);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`rcm: ${csv}: not an X12 file (it does not start with ISA, ST or a known X12 segment)\n`);
  });

  it("explains a folder's X12 files by name, skipping each other file with one line", async () => {
    const dir = join(dataDir(), 'folder');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'b.835'), MEDICARE);
    // No ISA, as a payer's companion-guide sample sends it: ST..SE alone (another payment: its own trace number).
    await writeFile(join(dir, 'a.835'), MEDICARE.slice(MEDICARE.indexOf('ST*835')).replace(/GE\*[\s\S]*$/, '').replace('TRN*1*EFT0001', 'TRN*1*EFT0002'));
    // The same remittance as b.835 again: one call, so the copy is caught across files.
    await writeFile(join(dir, 'c.835'), MEDICARE);
    await writeFile(join(dir, 'notes.md'), '# August\n');
    const r = await rcm('remit', 'explain', dir, ...AT);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toBe(`skipped ${join(dir, 'notes.md')}: not an X12 file\n`);
    // Each file's part is headed by its name, in name order.
    expect(r.out.indexOf(`== ${join(dir, 'a.835')} ==`)).toBe(0);
    expect(r.out.indexOf(`== ${join(dir, 'b.835')} ==`)).toBeGreaterThan(0);
    expect(r.out.match(/^Total: 2 claims, 3 lines/gm)).toHaveLength(2);
    const c = r.out.slice(r.out.indexOf(`== ${join(dir, 'c.835')} ==`));
    expect(c).toMatch(/duplicate_remittance .*the same remittance \(trace number, payer and payment\) as transaction 1 of .*b\.835: left out of the totals/);
    expect(c).toMatch(/^Total: 0 claims, 0 lines/m);
  });

  it('exits 1 naming the file and the segment for X12 it cannot read', async () => {
    const file = join(dataDir(), 'cut.835');
    await writeFile(file, MEDICARE.replace(/SE\*[\s\S]*$/, ''));
    const r = await rcm('remit', 'explain', file, ...AT);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^rcm: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: `));
    expect(r.err).toMatch(/body\.segment\.\d+\.\w+: /);
  });

  it('checks --as-of against the calendar: exit 2 for 2026-13-45 and 2026-02-30, 2028-02-29 taken', async () => {
    const file = join(dataDir(), 'asof.835');
    await writeFile(file, MEDICARE);
    for (const bad of ['2026-13-45', '2026-02-30']) {
      const r = await rcm('remit', 'explain', file, '--as-of', bad);
      expect(r.code, bad).toBe(2);
      expect(r.err).toContain(`${bad} is not a calendar date`);
      expect(r.out).toBe('');
    }
    const leap = await rcm('remit', 'explain', file, '--as-of', '2028-02-29', '--format', 'json');
    expect(leap.code, leap.err).toBe(0);
    expect(JSON.parse(leap.out).as_of).toBe('2028-02-29');
  });
});

describe('rcm remit explain for a posting team', () => {
  // A reversal of ICN0001 (paid 80) in one file; its correction (REF*F8 ICN0001, paid 90) in the next.
  const REVERSAL = remit835(['CLP*PCN001*22*-150*-80*-20*MB*ICN0001*11', 'SVC*HC:99213*-150*-80**-1', 'DTM*472*20251201', 'CAS*CO*45*-50', 'CAS*PR*1*-20'], { bpr: '80', date: '20260810' }).replace('*C*ACH*', '*D*ACH*').replace('EFT0001', 'EFT0100');
  const CORRECTION = remit835(['CLP*PCN001*1*150*90*20*MB*ICN0005*11', 'REF*F8*ICN0001', 'NM1*QC*1*DOE*JANE****MI*MBI77', 'SVC*HC:99213*150*90**1', 'DTM*472*20251201', 'CAS*CO*45*40', 'CAS*PR*1*20'], { bpr: '90', date: '20260811' }).replace('EFT0001', 'EFT0101');

  it('pairs a reversal with its correction across files, and answers one worklist and summary for the call', async () => {
    const dir = join(dataDir(), 'batch');
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, '1-reversal.835'), REVERSAL);
    await writeFile(join(dir, '2-correction.835'), CORRECTION);
    const r = await rcm('remit', 'explain', dir, '--format', 'json', ...AT);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(['files', 'worklist', 'summary', 'reversals', 'findings']);
    expect(j.files.map((f: { file: string }) => f.file)).toEqual([join(dir, '1-reversal.835'), join(dir, '2-correction.835')]);
    // The debit balances: -80 taken back.
    expect(j.files[0].transactions[0].reconciliation).toMatchObject({ payment: -80, direction: 'debit', balanced: true });
    const correction = j.files[1].transactions[0].claims[0];
    expect(correction.reversal_of).toMatchObject({ file: join(dir, '1-reversal.835'), transaction: 0, claim: 0, payer_claim_control_number: 'ICN0001' });
    expect(correction.net_paid_change).toBe(10);
    expect(j.reversals).toEqual([expect.objectContaining({ matched_by: 'original_reference', reversed_paid: -80, corrected_paid: 90, net_paid_change: 10 })]);
    expect(j.findings).toEqual([]);
    expect(j.summary).toMatchObject({ transactions: 2, claims: 2, totals: { paid: 10 } });
  });

  it('writes the posting file of several files under one header, and redacts with tokens that still pair', async () => {
    const a = join(dataDir(), 'r.835');
    const b = join(dataDir(), 'c.835');
    await writeFile(a, REVERSAL);
    await writeFile(b, CORRECTION);
    const r = await rcm('remit', 'explain', a, b, '--format', 'posting-csv', '--redact', ...AT);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('level,'))).toHaveLength(1);
    expect(r.out).not.toMatch(/ICN0001|ICN0005|MBI77|DOE|PCN001/);
    const claims = (parse(r.out, { columns: true }) as Record<string, string>[]).filter((x) => x.level === 'claim');
    expect(claims.map((x) => x.file)).toEqual([a, b]);
    // The correction's reversal_of is the reversal's (redacted) payer claim number.
    expect(claims[1]!.reversal_of).toBe(claims[0]!.payer_claim_control_number);
    expect(claims[1]!.patient_name).toMatch(/^NAME-\d+, NAME-\d+$/);
    expect(claims[1]!.net_paid_change).toBe('10.00');
    // csv stays the worklist's alias.
    const csv = await rcm('remit', 'explain', b, '--format', 'csv', ...AT);
    expect(csv.out).toBe((await rcm('remit', 'explain', b, '--format', 'worklist-csv', ...AT)).out);
  });
});
