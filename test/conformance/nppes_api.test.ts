import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { npiProblem, providerOf } from '../../server/npi/provider.js';
import { readRegistryBody } from '../../server/npi/registry.js';
import { requireShared, sharedDataDir } from '../../testing/shared.js';

const DIR = 'nppes-api';
const present = requireShared(`${DIR}/api-b2f594.json`, `${DIR}/api-8bdc8b.json`, `${DIR}/api-a2f836.json`, `${DIR}/api-8d2d52.json`, `${DIR}/api-c85286.json`);
const body = async (f: string) => JSON.parse(await readFile(join(sharedDataDir(), DIR, f), 'utf8')) as { results?: { number: number | string }[] };

describe.skipIf(!present)('the NPI Registry API v2.1 mapper on recorded real responses (ropensci/npi)', () => {
  it('maps an individual (NPI-1) record', async () => {
    const a = readRegistryBody(await body('api-b2f594.json'), '1720377294');
    expect(a.kind).toBe('found');
    if (a.kind !== 'found') return;
    expect(providerOf(a.result)).toMatchObject({
      npi: '1720377294',
      entity_type: 'individual',
      name: 'ELISE AILEEN HIZA',
      credential: 'M.D.',
      gender: 'F',
      status: 'active',
      primary_taxonomy: { code: '207X00000X', description: 'Orthopaedic Surgery', state: 'NC', license: '2017-01132' },
      practice_address: { address_1: '111 VICTORIA RD', city: 'ASHEVILLE', state: 'NC', postal_code: '288014811', phone: '828-252-7331' },
    });
  });

  it('maps an organization (NPI-2) record', async () => {
    const a = readRegistryBody(await body('api-8bdc8b.json'), '1568946812');
    expect(a.kind).toBe('found');
    if (a.kind !== 'found') return;
    expect(providerOf(a.result)).toMatchObject({ npi: '1568946812', entity_type: 'organization', name: 'CSP ANESTHESIA LLC', credential: null, gender: null, status: 'active' });
  });

  it('reads every record of every recorded page, and every NPI in them passes the check digit', async () => {
    let n = 0;
    for (const f of (await readdir(join(sharedDataDir(), DIR))).filter((x) => x.endsWith('.json'))) {
      for (const r of (await body(f)).results ?? []) {
        const npi = String(r.number);
        expect(npiProblem(npi), `${f} ${npi}`).toBeNull();
        const a = readRegistryBody(await body(f), npi);
        expect(a.kind, `${f} ${npi}`).toBe('found');
        if (a.kind === 'found') expect(providerOf(a.result).name.length, `${f} ${npi}`).toBeGreaterThan(0);
        n++;
      }
    }
    expect(n).toBe(49);
  });

  it('maps result_count 0 to not found, and Errors[] (HTTP 200) to an unavailable registry naming the error', async () => {
    expect(readRegistryBody(await body('api-a2f836.json'), '1720377294')).toEqual({ kind: 'not_found' });
    expect(readRegistryBody(await body('api-8d2d52.json'), '1720377294')).toEqual({ kind: 'unavailable', reason: 'the registry refused the request: No valid search criteria provided (04)' });
    expect(readRegistryBody(await body('api-c85286.json'), '1720377294')).toMatchObject({ kind: 'unavailable', reason: expect.stringContaining('enumeration_type requires additional search criteria') });
  });
});
