import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIO } from '../cli/main.js';
import { useSeededDir } from './helpers/harness.js';
import { remit835 } from './helpers/x12.js';

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
    expect(r.out).toContain('Claim PCN001 (processed as primary): charged $150.00, paid $80.00, patient $20.00');
    // A write-off has no deadline (an appeal window beside it read as one).
    expect(r.out).toMatch(/CO-45 \$50\.00: Charge exceeds fee schedule.* -> contractual adjustment; the amount is the provider's/);
    expect(r.out).toMatch(/PR-1 \$20\.00: Deductible Amount -> bill patient; the amount is the patient's/);
    // 42 CFR 405.980(c)(1): 2026-08-03 + 1 year = 2027-08-03, 358 days after 2026-08-10.
    expect(r.out).toMatch(/CO-97 \$100\.00: .* -> reopen by 2027-08-03 \(358 days\); the amount is the provider's/);
    expect(r.out).toContain('NCCI: 97597 is column 2 of 11042 (modifier indicator 1)');
    // 3.1105 RVU x 32.3465 = 100.61 in Manhattan for 2025-12-01: allowed 100.00 is 0.61 under it.
    expect(r.out).toContain('Medicare fee schedule $100.61 in locality 1320201: underpaid (-0.61) -> reopen by 2027-08-03 (358 days); the amount stays with the payer');
    expect(r.out).toMatch(/remark M80: /);
    expect(r.out).toContain('Worklist (earliest deadline first)');
  });

  it("is what the README shows as a remittance explained", async () => {
    const file = join(dataDir(), 'medicare.835');
    await writeFile(file, MEDICARE);
    const r = await rcm('remit', 'explain', file, ...AT);
    const readme = await readFile(join(import.meta.dirname, '../README.md'), 'utf8');
    const shown = /### A remittance explained[\s\S]*?```text\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(shown).toBe(r.out.replaceAll(file, 'medicare.835'));
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
