import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../testing/datasets.js';
import { useTestServer } from '../../testing/harness.js';

const server = useTestServer({ now: () => new Date('2026-08-10T12:00:00Z') });

const REMIT = readFileSync(join(REPO_ROOT, 'samples/remittance/medicare.835'));
const CLAIMS = readFileSync(join(REPO_ROOT, 'samples/claims/medicare.837'));
const B = '----rcm-loop-boundary';

/** A multipart/form-data body of named file parts, in order. */
function form(parts: [string, Buffer][]): Buffer {
  return Buffer.concat([...parts.flatMap(([name, bytes]) => [Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.x12"\r\nContent-Type: application/edi-x12\r\n\r\n`), bytes, Buffer.from('\r\n')]), Buffer.from(`--${B}--\r\n`)]);
}
const post = (body: Buffer, q = '') => server().request(`/v1/remittances/explain?as_of=2026-08-10&locality=1320201${q}`, { method: 'POST', body, headers: { 'Content-Type': `multipart/form-data; boundary=${B}` } });

describe('POST /v1/remittances/explain with the claims behind it (multipart)', () => {
  it('explains the 835 and closes the loop against the 837: the predicted CO-97 is confirmed', async () => {
    const r = await post(form([['remittance', REMIT], ['claims', CLAIMS]]));
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    expect(r.body.summary.claims).toBe(4);
    expect(r.body.transactions[0].claims).toHaveLength(4);
    expect(r.body.loop.predictions).toEqual({ confirmed: 1, missed: 0, false_alarm: 0, none: 3, lines: 4, lines_not_linked: 0 });
    expect(r.body.loop.claims.find((c: { patient_control_number: string }) => c.patient_control_number === 'PCN002').lines[1]).toMatchObject({ code: '97597', outcome: 'confirmed', predicted: ['CO-97'], denied: ['CO-97'] });
    expect(r.body.payersMatched).toBeUndefined();
    // The same explanation as without the claims, but for the loop.
    const alone = await server().request('/v1/remittances/explain?as_of=2026-08-10&locality=1320201', { method: 'POST', body: REMIT, headers: { 'Content-Type': 'application/edi-x12' } });
    const strip = (b: { reliability: unknown; loop?: unknown }) => JSON.stringify({ ...b, reliability: undefined, loop: undefined });
    expect(JSON.parse(strip(r.body))).toEqual(JSON.parse(strip(alone.body)));
  });

  it('takes the 835 alone as a multipart part, and refuses a loop as CSV or an 837 that is not one, naming it', async () => {
    const alone = await post(form([['remittance', REMIT]]));
    expect(alone.status).toBe(200);
    expect(alone.body.loop).toBeUndefined();
    const csv = await post(form([['remittance', REMIT], ['claims', CLAIMS]]), '&format=posting-csv');
    expect(csv.status).toBe(422);
    expect(csv.body.detail[0]).toMatchObject({ loc: ['query', 'format'] });
    const wrong = await post(form([['remittance', REMIT], ['claims', REMIT]]));
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(wrong.body)).toMatch(/835 remittance advice, not an 837 claim/);
  });
});
