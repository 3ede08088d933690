import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../testing/harness.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

let t: TestServer;
let dir: string;
beforeAll(async () => {
  t = await startTestServer();
  dir = await mkdtemp(join(tmpdir(), 'rcm-openapi-'));
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

describe('OpenAPI document', () => {
  it("describes each route's 503 by the causes it can answer: the state store for keyed routes, the snapshot for data routes", async () => {
    const doc = (await t.request('/v1/openapi.json', { key: null })).body as { paths: Record<string, Record<string, { responses: Record<string, { description: string; 'x-error-codes'?: string[] }> }>> };
    const write = doc.paths['/v1/facilities/{ccn}/payers']!.post!.responses['503']!;
    expect(write['x-error-codes']).toContain('state_unavailable');
    expect(write.description).toMatch(/state store does not answer/);
    const read = doc.paths['/v1/codes/{code}']!.get!.responses['503']!;
    expect(read.description).toMatch(/^Not ready: no data snapshot is published yet; or the state store does not answer/);
  });

  it('describes every field of every request body, nested ones included', async () => {
    type Schema = { $ref?: string; description?: string; properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[]; anyOf?: Schema[]; oneOf?: Schema[] };
    const doc = (await t.request('/v1/openapi.json', { key: null })).body as { paths: Record<string, Record<string, { operationId: string; requestBody?: { content: Record<string, { schema?: Schema }> } }>>; components: { schemas: Record<string, Schema> } };
    const resolve = (s: Schema): Schema => (s.$ref ? resolve(doc.components.schemas[s.$ref.split('/').at(-1)!]!) : s);
    const missing: string[] = [];
    const walk = (s: Schema, at: string): void => {
      const r = resolve(s);
      for (const x of [...(r.allOf ?? []), ...(r.anyOf ?? []), ...(r.oneOf ?? [])]) walk(x, at);
      for (const [name, p] of Object.entries(r.properties ?? {})) {
        if (!p.description && !resolve(p).description) missing.push(`${at}.${name}`);
        walk(p, `${at}.${name}`);
      }
      if (r.items) walk(r.items, `${at}[]`);
    };
    let fields = 0;
    for (const ops of Object.values(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const c of Object.values(op.requestBody?.content ?? {})) {
          if (!c.schema) continue;
          fields += Object.keys(resolve(c.schema).properties ?? {}).length;
          walk(c.schema, op.operationId);
        }
      }
    }
    expect(fields).toBeGreaterThan(80);
    expect(missing).toEqual([]);
  });

  it('has no component with a fragment-only $id (validators resolve its $refs against it and fail)', async () => {
    const doc = (await t.request('/v1/openapi.json', { key: null })).body as { components: { schemas: Record<string, Record<string, unknown>> } };
    expect(Object.entries(doc.components.schemas).filter(([, s]) => '$id' in s).map(([k]) => k)).toEqual([]);
  });

  // Redocly CLI 2 runs on Node 20.19 and later (the service itself supports 20.16).
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  it.skipIf(major === 20 && minor < 19)('passes `redocly lint` (CLI 2) with the recommended ruleset, without errors or warnings', async () => {
    const doc = await t.request('/v1/openapi.json', { key: null });
    const file = join(dir, 'openapi.json');
    await writeFile(file, doc.text);
    // Telemetry and update checks off: tests never reach past loopback.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
    const bin = join(ROOT, 'node_modules', '.bin', 'redocly');
    const res = await run(bin, ['lint', '--config', join(ROOT, 'redocly.yaml'), file], { env, cwd: ROOT }).catch((e: { stdout: string; stderr: string; code: number }) => e);
    const out = `${res.stdout}\n${res.stderr}`;
    expect('code' in res ? res.code : 0, out).toBe(0);
    expect(out).toContain('Your API description is valid');
    expect(out).not.toMatch(/You have \d+ warning/);
  });
});
