import { existsSync } from 'node:fs';
import * as pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { headingsPdf } from '../testing/pdfs.js';
import { sharedDataDir } from '../testing/shared.js';
import { benchRow, load, paired } from './lib.js';
import { seededPair } from './procs.js';

/**
 * Customer policy documents: seconds to parse a 50-page payer PDF through `POST /v1/policy/parse`
 * (the real 53-page policy in ../shared/data when present, else a generated one), read-route
 * latency while parses run (the parser has its own thread), and `POST /v1/policy/retrieve`
 * req/s beside the bare Koa route (16 connections, medians of 3 alternating rounds).
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const real = join(sharedDataDir(), 'payer-policy-pdf/bariatric-surgery.pdf');
  const pdf = existsSync(real) ? await readFile(real) : await headingsPdf();
  const source = existsSync(real) ? 'real 53-page payer policy' : 'generated 2-page policy (../shared/data missing)';
  const p = await seededPair('rcm-bench-policy-');
  const headers = { 'X-API-Key': p.key, 'Content-Type': 'application/pdf' };
  const rows: Record<string, string | number>[] = [];
  try {
    // Distinct bytes each time (a trailing comment after %%EOF, which readers ignore), so each
    // upload is parsed rather than answered from the stored document.
    const variant = (i: number) => Buffer.concat([pdf, Buffer.from(`\n% bench ${i}\n`)]);
    const parseOnce = async (i: number) => {
      const t0 = performance.now();
      const r = await fetch(`${p.api.url}/v1/policy/parse`, { method: 'POST', headers, body: variant(i) });
      if (r.status !== 201) throw new Error(`parse answered ${r.status}: ${(await r.text()).slice(0, 200)}`);
      await r.arrayBuffer();
      return (performance.now() - t0) / 1000;
    };
    await parseOnce(0); // the worker thread starts on the first parse
    const secs: number[] = [];
    for (let i = 1; i <= 5; i++) secs.push(await parseOnce(i));
    secs.sort((a, b) => a - b);
    // Baseline: the PDF engine's own text extraction of the same bytes (what pdf-parse's getText does), in process.
    const base: number[] = [];
    for (let i = 0; i < 5; i++) base.push(await textOnlySeconds(pdf));
    base.sort((a, b) => a - b);
    rows.push({
      case: `POST /v1/policy/parse, ${source}, median of 5; baseline pdfjs getTextContent of every page, in process`,
      'req/s': '',
      'p50 ms': Math.round(secs[2]! * 1000),
      'p99 ms': Math.round(secs[4]! * 1000),
      'non-2xx': 0,
      'bare req/s': `${Math.round(base[2]! * 1000)} ms`,
      'ratio vs bare': (secs[2]! / base[2]!).toFixed(2),
    });

    // A read route while parses run back to back, against the same route idle.
    const lookup = { paths: ['/v1/codes/99213'], headers: { 'X-API-Key': p.key }, seconds: 4, connections: 4 };
    const idle = await load('idle', p.api.url, lookup);
    let parsing = true;
    const busy = (async () => {
      for (let i = 100; parsing; i++) await parseOnce(i);
    })();
    const during = await load('during parses', p.api.url, lookup);
    parsing = false;
    await busy;
    rows.push(benchRow('GET /v1/codes/99213 idle (4 connections)', idle));
    rows.push({ ...benchRow('GET /v1/codes/99213 while PDFs parse back to back', during), 'ratio vs bare': `${(during.requests_per_s / idle.requests_per_s).toFixed(2)}x idle req/s` });

    const queries = [
      'what does the policy require for 43775?',
      'criteria for bariatric surgery in adolescents',
      'gastric balloon removal',
      'revisional surgery after sleeve gastrectomy',
      'documentation required for review',
      'BMI 35 with type 2 diabetes',
    ];
    const bodies = queries.map((query) => JSON.stringify({ query, top_k: 5 }));
    const jsonHeaders = { 'X-API-Key': p.key, 'Content-Type': 'application/json' };
    const retrieve = (label: string) => load(label, p.api.url, { paths: ['/v1/policy/retrieve'], method: 'POST', bodies, headers: jsonHeaders, seconds: 4, connections: 16 });
    await retrieve('warmup');
    const r = await paired(
      3,
      () => load('bare', p.bare.url, { paths: ['/'], seconds: 4, connections: 16 }),
      () => retrieve('retrieve'),
    );
    const list = (await (await fetch(`${p.api.url}/v1/policy/documents`, { headers: { 'X-API-Key': p.key } })).json()) as { total: number; documents: { chunk_count: number }[] };
    const chunks = list.documents.reduce((a, d) => a + d.chunk_count, 0);
    rows.push(benchRow(`POST /v1/policy/retrieve, ${queries.length} questions over ${list.total} parsed copies, ${chunks} chunks (median of 3)`, r.subject, r.base, r.ratio));
  } finally {
    await p.stop();
  }
  return rows;
}

/** Seconds for pdfjs to open `pdf` and read every page's text content (no structure, no storage). */
async function textOnlySeconds(pdf: Buffer): Promise<number> {
  const t0 = performance.now();
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), verbosity: 0, isEvalSupported: false }).promise;
  for (let p = 1; p <= doc.numPages; p++) await (await doc.getPage(p)).getTextContent();
  await doc.destroy();
  return (performance.now() - t0) / 1000;
}
