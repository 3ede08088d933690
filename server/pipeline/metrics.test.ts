import { describe, expect, it } from 'vitest';
import { Metrics } from './metrics.js';
import { sidecarFallback, type SnapshotReader } from '../../warehouse/snapshot.js';

describe('request metrics (plain counters exposed through the prom-client registry)', () => {
  it('counts requests by status and keeps cumulative latency buckets, sum and count per route', async () => {
    const m = new Metrics({ processMetrics: false });
    m.observe('GET', '/v1/codes/{code}', 200, 0.0004, 'http');
    m.observe('GET', '/v1/codes/{code}', 200, 0.003, 'http');
    m.observe('GET', '/v1/codes/{code}', 404, 7, 'http');
    m.observe('POST', '/v1/ncci/validate', 200, 0.02, 'mcp');
    m.cacheLookup(true);
    m.cacheLookup(true);
    m.cacheLookup(false);
    const text = await m.render();
    const line = (s: string) => text.split('\n').find((l) => l.startsWith(s));
    expect(line('rcm_http_requests_total{method="GET",route="/v1/codes/{code}",status="200",transport="http"}')).toMatch(/ 2$/);
    expect(line('rcm_http_requests_total{method="GET",route="/v1/codes/{code}",status="404",transport="http"}')).toMatch(/ 1$/);
    expect(line('rcm_http_requests_total{method="POST",route="/v1/ncci/validate",status="200",transport="mcp"}')).toMatch(/ 1$/);
    const b = (le: string) => line(`rcm_http_request_duration_seconds_bucket{le="${le}",method="GET",route="/v1/codes/{code}",transport="http"}`);
    expect(b('0.001')).toMatch(/ 1$/);
    expect(b('0.0025')).toMatch(/ 1$/);
    expect(b('0.005')).toMatch(/ 2$/);
    expect(b('5')).toMatch(/ 2$/);
    expect(b('+Inf')).toMatch(/ 3$/);
    expect(line('rcm_http_request_duration_seconds_count{method="GET",route="/v1/codes/{code}",transport="http"}')).toMatch(/ 3$/);
    expect(Number(line('rcm_http_request_duration_seconds_sum{method="GET",route="/v1/codes/{code}",transport="http"}')!.split(' ')[1])).toBeCloseTo(7.0034, 6);
    expect(text).toContain('# TYPE rcm_http_request_duration_seconds histogram');
    expect(text).toContain('# TYPE rcm_http_requests_total counter');
    expect(line('rcm_answer_cache_lookups_total{outcome="hit"}')).toMatch(/ 2$/);
    expect(line('rcm_answer_cache_lookups_total{outcome="miss"}')).toMatch(/ 1$/);
    // A second scrape reports the same totals (the counter is rebuilt from the counts, not added to).
    expect((await m.render()).split('\n').find((l) => l.startsWith('rcm_answer_cache_lookups_total{outcome="hit"}'))).toMatch(/ 2$/);
  });

  it('reports answers a sidecar left to DuckDB, by dataset, sidecar and reason, not counting readers outside a data directory', async () => {
    const m = new Metrics({ processMetrics: false });
    const line = async (reason: string) => (await m.render()).split('\n').find((l) => l.startsWith(`rcm_sidecar_fallbacks_total{dataset="fda_ndc",sidecar="metrics-test",reason="${reason}"}`));
    const inDir = { location: '/data' } as SnapshotReader;
    sidecarFallback(inDir, 'fda_ndc', 'metrics-test', 'damaged');
    sidecarFallback(inDir, 'fda_ndc', 'metrics-test', 'damaged');
    sidecarFallback(inDir, 'fda_ndc', 'metrics-test', 'wide');
    sidecarFallback({} as SnapshotReader, 'fda_ndc', 'metrics-test', 'missing');
    expect(await line('damaged')).toMatch(/ 2$/);
    expect(await line('wide')).toMatch(/ 1$/);
    expect(await line('missing')).toBeUndefined();
  });
});
