import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIO } from './main.js';
import { useSeededDir } from '../testing/harness.js';
import { REPO_ROOT } from '../testing/datasets.js';

const dataDir = useSeededDir('rcm-claim-cli-');

async function rcm(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY: false, env: { RCM_DATA_DIR: dataDir() }, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  return { code: await main(args, io), ...o };
}

const CLAIMS = join(REPO_ROOT, 'samples/claims/medicare.837');
const REMIT = join(REPO_ROOT, 'samples/remittance/medicare.835');

describe('rcm claim check and the loop closed on the samples', () => {
  it('checks the sample claims: predicts PCN002\'s CO-97, prices PCN003 as the fee schedule pays, says what it could not check', async () => {
    const r = await rcm('claim', 'check', CLAIMS, '--as-of', '2026-08-10', '--locality', '1320201');
    expect(r.code).toBe(0);
    expect(r.out).toContain('claim PCN002 (medicare_ffs): issues; expected allowed not priced; submit by 2027-07-15');
    expect(r.out).toMatch(/line 2 ptp fail \(CO-97\): 97597 \(line 2\) with 11042 \(line 1\)/);
    expect(r.out).toContain('claim PCN003 (medicare_ffs): incomplete; expected allowed $141.43; submit by 2026-11-10');
    expect(r.out).toContain('3 claims: 0 clean, 1 with issues, 2 incomplete; predicted CO-97 x1');
    const csv = await rcm('claim', 'check', CLAIMS, '--as-of', '2026-08-10', '--format', 'csv');
    expect(csv.out.split('\n').filter((l) => l.includes(',ptp,fail,CO-97,add_modifier,'))).toHaveLength(1);
  });

  it('closes the loop against the sample remittance: the CO-97 predicted is the CO-97 sent', async () => {
    const r = await rcm('remit', 'explain', REMIT, '--claims', CLAIMS, '--as-of', '2026-08-10', '--locality', '1320201');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Predictions against the remittance: 1 confirmed, 0 missed, 0 false alarms, 3 none (4 lines, 0 not linked to a checked line)');
    expect(r.out).toContain('claim PCN002 97597 (837 line 2): confirmed; predicted CO-97, denied CO-97');
    const json = JSON.parse((await rcm('remit', 'explain', REMIT, '--claims', CLAIMS, '--as-of', '2026-08-10', '--format', 'json')).out);
    expect(json.loop.predictions).toEqual({ confirmed: 1, missed: 0, false_alarm: 0, none: 3, lines: 4, lines_not_linked: 0 });
    expect(json.files[0].transactions[0].claims).toHaveLength(4);
    const csv = await rcm('remit', 'explain', REMIT, '--claims', CLAIMS, '--format', 'posting-csv');
    expect(csv.code).toBe(1);
    expect(csv.err).toMatch(/--claims answers text, markdown or json/);
  });

  it('names the file and the segment of an 837 it cannot read', async () => {
    const r = await rcm('claim', 'check', REMIT);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/medicare\.835: validation failed\n  body\.segment\.3\.ST: this file is an 835 remittance advice, not an 837 claim/);
  });
});
