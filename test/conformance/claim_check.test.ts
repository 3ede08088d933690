import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { read837 } from '../../server/claims/read837.js';
import { startTestServer, type TestServer } from '../../testing/harness.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

// Every 837 of shared/data/x12-837 (the TR3 examples, the imsweb parser's valid and broken files)
// through POST /v1/claims/check on the seeded service: a readable file is checked (every claim
// answered, its structure findings at their segments), an unreadable one is a 422 naming where,
// never a 5xx. The examples' dates (2004-2013) are outside every seeded release: their NCCI,
// diagnosis and pricing checks say so in `unchecked` rather than judging by another year's file.
const present = requireShared('x12-837/professional', 'x12-837/institutional', 'x12-837/imsweb');
const at = (dir: string, f: string) => join(sharedDataDir(), 'x12-837', dir, f);
const all = present ? ['professional', 'institutional', 'imsweb'].flatMap((d) => readdirSync(join(sharedDataDir(), 'x12-837', d)).sort().map((f) => [d, f] as const)) : [];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ now: () => new Date('2026-11-20T12:00:00Z') });
});
afterAll(async () => t?.close());

describe.skipIf(!present)('the claim check on every shared 837', () => {
  it.each(all)('%s/%s: checked (every claim answered) or a 422 naming the segment, never a 5xx', async (dir, f) => {
    const bytes = readFileSync(at(dir, f));
    const r = await t.request('/v1/claims/check', { method: 'POST', body: bytes.toString('latin1'), headers: { 'content-type': 'application/edi-x12' } });
    expect([200, 422]).toContain(r.status);
    if (r.status === 422) {
      expect(r.body.detail.length).toBeGreaterThan(0);
      expect(r.body.detail[0].loc[0]).toBe('body');
      return;
    }
    let claims = 0;
    for (const _ of read837(bytes).each()) claims++;
    expect(r.body.summary.claims).toBe(claims);
    expect(r.body.claims).toHaveLength(claims);
    for (const c of r.body.claims) {
      expect(['clean', 'issues', 'incomplete']).toContain(c.status);
      // Decades-old dates: nothing is judged by a release not in force.
      const dated = c.lines.filter((l: { code: string | null; date_of_service: string | null }) => l.code && l.date_of_service);
      if (dated.length && dated.every((l: { date_of_service: string }) => l.date_of_service < '2020-01-01')) {
        expect(c.unchecked.map((u: { check: string }) => u.check)).toContain('ncci');
        expect(c.lines.flatMap((l: { findings: { kind: string }[] }) => l.findings).filter((x: { kind: string }) => ['ptp', 'mue', 'aoc'].includes(x.kind))).toEqual([]);
      }
      for (const f2 of [...c.findings, ...c.lines.flatMap((l: { findings: object[] }) => l.findings)]) expect(f2.segment === null || f2.segment > 0).toBe(true);
    }
  });

  it('finds the TR3 example 1 as the guide writes it: balanced, pointed, its example taxonomy 203BF0100Y not of the NUCC shape', async () => {
    const r = await t.request('/v1/claims/check', { method: 'POST', body: readFileSync(at('professional', 'lfh__demo.example1.837'), 'latin1'), headers: { 'content-type': 'application/edi-x12' } });
    const c = r.body.claims[0];
    expect(c).toMatchObject({ patient_control_number: '26463774', total_charge: 100, place_of_service: '11', frequency: '1' });
    const structure = [...c.findings, ...c.lines.flatMap((l: { findings: object[] }) => l.findings)].filter((x: { kind: string }) => x.kind === 'structure');
    expect(structure.map((x: { message: string }) => x.message)).toEqual(['the billing provider (2010AA) taxonomy code is not 9 letters or digits then X (the NUCC code set\'s shape)']);
  });

  it('reads the 820-claim file whole, each claim answered', async () => {
    const r = await t.request('/v1/claims/check', { method: 'POST', body: readFileSync(at('imsweb', 'imsweb__x12_many_claims.txt'), 'latin1'), headers: { 'content-type': 'application/edi-x12' } });
    expect(r.status).toBe(200);
    expect(r.body.summary.claims).toBe(820);
  });
});
