import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFile, parseAll, REPO_ROOT } from '../../testing/datasets.js';
import { macJurisdictions } from './dataset.js';
import { contractorKey, jurisdictionsOf, jurisdictionsOfState, macOfPayer, type MacIndex } from './queries.js';

const SEED = join(REPO_ROOT, 'seeds/mac_jurisdictions/mac_jurisdictions.yaml');
const UGLY = join(REPO_ROOT, 'test/fixtures/mac_jurisdictions/mac_jurisdictions_ugly.yaml');

async function index(): Promise<MacIndex> {
  const { rows } = await parseAll(macJurisdictions, SEED);
  return { version: 'test', rows };
}

describe('mac_jurisdictions (curated, cited)', () => {
  it('reads 12 A/B and 4 DME jurisdictions, each cited and unverified, versioned by the curated date', async () => {
    expect(await detectFile(macJurisdictions, SEED)).toEqual({ detected: true, version: { label: '2026-12-06', effective_date: '2026-12-06' } });
    const { rows, rejects } = await parseAll(macJurisdictions, SEED);
    expect(rejects).toEqual([]);
    expect(rows.filter((r) => r.kind === 'ab')).toHaveLength(12);
    expect(rows.filter((r) => r.kind === 'dme')).toHaveLength(4);
    for (const r of rows) {
      expect(r.citation.url).toMatch(/^https:\/\//);
      expect(r.review_status).toBe('unverified');
    }
  });

  it('places every state and DC in exactly one A/B and one DME jurisdiction', async () => {
    const { rows } = await index();
    const states = ['AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'DC', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY'];
    for (const kind of ['ab', 'dme'] as const) {
      const listed = rows.filter((r) => r.kind === kind).flatMap((r) => r.states);
      expect(new Set(listed).size, kind).toBe(listed.length);
      for (const s of states) expect(listed, `${kind} ${s}`).toContain(s);
    }
  });

  it('matches a contractor to every jurisdiction of the kind it holds: one is resolved, several are not', async () => {
    const idx = await index();
    const cgs = jurisdictionsOf(idx, [{ name: 'CGS Administrators, LLC', types: ['MAC - Part A', 'MAC - Part B'] }]);
    expect(cgs).toMatchObject({ resolved: true, unplaced: [] });
    expect(cgs.jurisdictions.map((j) => j.jurisdiction)).toEqual(['J15']);
    const noridian = jurisdictionsOf(idx, [{ name: 'Noridian Healthcare Solutions, LLC', types: ['MAC - Part A', 'MAC - Part B'] }]);
    expect(noridian.resolved).toBe(false);
    expect(noridian.jurisdictions.map((j) => j.jurisdiction).sort()).toEqual(['JE', 'JF']);
    const dme = jurisdictionsOf(idx, [
      { name: 'CGS Administrators, LLC', types: ['DME MAC'] },
      { name: 'Noridian Healthcare Solutions, LLC', types: ['DME MAC'] },
    ]);
    expect(dme.jurisdictions.map((j) => j.jurisdiction).sort()).toEqual(['DME A', 'DME B', 'DME C', 'DME D']);
    const hhh = jurisdictionsOf(idx, [{ name: 'CGS Administrators, LLC', types: ['HHH MAC'] }]);
    expect(hhh).toEqual({ jurisdictions: [], resolved: false, unplaced: ['CGS Administrators, LLC (HHH MAC)'] });
  });

  it('compares contractor names without case, punctuation or corporate suffix', () => {
    expect(contractorKey('National Government Services, Inc.')).toBe(contractorKey('NATIONAL GOVERNMENT SERVICES INC'));
    expect(contractorKey('WPS Insurance Corporation')).toBe('wps insurance');
  });

  it('names the partial jurisdiction of a state beside its own (Northern Virginia Part B is JL)', async () => {
    const idx = await index();
    expect(jurisdictionsOfState(idx, 'VA').map((j) => j.jurisdiction).sort()).toEqual(['DME C', 'JL', 'JM']);
    expect(jurisdictionsOfState(idx, 'OH').map((j) => j.jurisdiction).sort()).toEqual(['DME B', 'J15']);
  });

  it('rejects a malformed jurisdiction id, a lower-case state and a row without a citation', async () => {
    const { rows, rejects } = await parseAll(macJurisdictions, UGLY);
    expect(rows).toEqual([]);
    expect(rejects.map((r) => r.issues.map((i) => i.loc.join('.')))).toEqual([
      ['jurisdictions.0.jurisdiction', 'jurisdictions.0.states.0'],
      ['jurisdictions.1.citation'],
    ]);
    expect(rejects[1]!.issues[0]!.msg).toBe('every jurisdiction needs a citation {title, url, retrieved}');
  });
});

describe('a remittance payer named as a Medicare contractor', () => {
  const of = async (name: string | null, ...ids: string[]) => {
    const m = macOfPayer(await index(), { name, ids });
    return m && { by: m.by, jurisdictions: m.jurisdictions.map((j) => j.jurisdiction).sort() };
  };

  it('by its Part B contractor number (Addendum E of the CY2026 PFS: 01182 is Southern California, 13202 New York)', async () => {
    expect(await of('SOME NAME', '01182')).toEqual({ by: 'contractor_number', jurisdictions: ['JE'] });
    expect(await of(null, '', '13202')).toEqual({ by: 'contractor_number', jurisdictions: ['JK'] });
    // Every Part B number of Addendum E is placed, once: 55 MAC numbers over 12 A/B jurisdictions.
    const numbers = (await index()).rows.flatMap((r) => r.contractor_numbers.map((c) => c.number));
    expect(numbers).toHaveLength(55);
    expect(new Set(numbers).size).toBe(55);
  });

  it('by the start of its name, as MACs print it (NORIDIAN JE PART B, NOVITAS SOLUTIONS INC, PALMETTO GBA), never a commercial plan of a similar name', async () => {
    expect(await of('NORIDIAN JE PART B')).toEqual({ by: 'name', jurisdictions: ['JE'] });
    expect(await of('Novitas Solutions, Inc.')).toEqual({ by: 'name', jurisdictions: ['JH', 'JL'] });
    expect(await of('PALMETTO GBA')).toEqual({ by: 'name', jurisdictions: ['JJ', 'JM'] });
    expect(await of('WPS HEALTH INSURANCE')).toBeNull();
    expect(await of('BLUE CROSS BLUE SHIELD OF NORTH DAKOTA')).toBeNull();
    expect(await of('NORIDIANS')).toBeNull();
  });
});
