import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dashed542, toNdc11, toProductNdc9 } from '../datasets/_shared/ndc.js';
import { ingestFiles } from '../ingest/pipeline.js';
import { Warehouse } from '../warehouse/store.js';
import { benchKey, benchRow, firstPassAndWarm, load, ratio, readCsvBaselineMs, rssOf, shuffle, warmPaired } from './lib.js';
import { seededStart, spawnApi, spawnBare } from './procs.js';


/** openFDA's 2020-05-01 drug-ndc export held this many products (its meta `results.total`). */
const PRODUCTS = 111_502;

const PRODUCT_HEADER = 'PRODUCTID\tPRODUCTNDC\tPRODUCTTYPENAME\tPROPRIETARYNAME\tPROPRIETARYNAMESUFFIX\tNONPROPRIETARYNAME\tDOSAGEFORMNAME\tROUTENAME\tSTARTMARKETINGDATE\tENDMARKETINGDATE\tMARKETINGCATEGORYNAME\tAPPLICATIONNUMBER\tLABELERNAME\tSUBSTANCENAME\tACTIVE_NUMERATOR_STRENGTH\tACTIVE_INGRED_UNIT\tPHARM_CLASSES\tDEASCHEDULE\tNDC_EXCLUDE_FLAG\tLISTING_RECORD_CERTIFIED_THROUGH';
const PACKAGE_HEADER = 'PRODUCTID\tPRODUCTNDC\tNDCPACKAGECODE\tPACKAGEDESCRIPTION\tSTARTMARKETINGDATE\tENDMARKETINGDATE\tNDC_EXCLUDE_FLAG\tSAMPLE_PACKAGE';

/** A deterministic generator (mulberry32), so every run ingests and queries the same directory. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYL = ['ab', 'ac', 'al', 'am', 'an', 'ar', 'ba', 'be', 'ca', 'ce', 'ci', 'co', 'da', 'de', 'di', 'do', 'fa', 'fe', 'ga', 'ge', 'la', 'le', 'li', 'lo', 'ma', 'me', 'mi', 'mo', 'na', 'ne', 'ni', 'no', 'pa', 'pe', 'pi', 'pra', 'que', 'ra', 're', 'ri', 'ro', 'sa', 'se', 'si', 'so', 'ta', 'te', 'ti', 'to', 'tra', 'va', 've', 'vi', 'xa', 'za', 'zo'];
const SUFFIX = ['pril', 'sartan', 'olol', 'statin', 'azepam', 'oxetine', 'mycin', 'cillin', 'profen', 'tidine', 'prazole', 'dronate', 'vir', 'mab', 'tinib', 'afil', 'codyl', 'one', 'ine', 'ide'];
const SALT = ['', '', '', ' hydrochloride', ' sodium', ' citrate', ' maleate', ' potassium', ' acetate', ' sulfate'];
const FORMS = ['TABLET', 'CAPSULE', 'TABLET, FILM COATED', 'INJECTION, SOLUTION', 'CREAM', 'POWDER', 'SOLUTION'];
const CORP = ['Pharmaceuticals, Inc.', 'Laboratories', 'Pharma LLC', 'Health Care', 'and Company', 'Generics Ltd.', 'AG', 'GmbH'];

/**
 * Writes a finished product.txt and package.txt of `n` products in FDA's layout (tab, CRLF,
 * CP1252 names with umlauts): ~2,000 generics with salts, brands from ~60,000 coined names (about
 * a third of products are unbranded generics), ~6,000 labelers, 1-3 packages per product, NDCs in
 * the 4-4-2, 5-3-2 and 5-4-1 layouts. Returns what the queries need.
 */
export async function writeDirectory(dir: string, n: number): Promise<{ packages: string[]; products: { ndc: string; brand: string; generic: string; labeler: string }[]; packageCount: number }> {
  const r = rng(21);
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const word = (k: number) => Array.from({ length: k }, () => pick(SYL)).join('');
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const generics = Array.from({ length: 2000 }, () => `${word(2)}${pick(SUFFIX)}`);
  const labelers = Array.from({ length: 6000 }, (_, i) => `${cap(word(2 + (i % 2)))}${i % 40 === 0 ? ' Schwäbisch Gmünd' : ''} ${pick(CORP)}`);
  const products: { ndc: string; brand: string; generic: string; labeler: string }[] = [];
  const packages: string[] = [];
  const prodLines = [PRODUCT_HEADER];
  const pkgLines = [PACKAGE_HEADER];
  const seen = new Set<string>();
  for (let i = 0; products.length < n; i++) {
    const layout = pick(['4-4-2', '5-3-2', '5-4-1', '5-4-1']);
    const [l, p, k] = layout.split('-').map(Number) as [number, number, number];
    const labelerNo = Math.floor(r() * 6000);
    const lab = String(1000 + labelerNo * (l === 4 ? 1 : 13)).padStart(l, '0').slice(-l);
    const prod = String(Math.floor(r() * 10 ** p)).padStart(p, '0');
    const ndc = `${lab}-${prod}`;
    if (seen.has(toProductNdc9(ndc)!)) continue;
    seen.add(toProductNdc9(ndc)!);
    const generic = `${pick(generics)}${pick(SALT)}`;
    const brand = r() < 0.35 ? cap(generic.split(' ')[0]!) : cap(`${word(1 + Math.floor(r() * 2))}${pick(['a', 'ex', 'ix', 'on', 'ol', 'ra'])}`);
    const labeler = labelers[labelerNo]!;
    const id = `${ndc}_${i.toString(16).padStart(8, '0')}-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const strength = String(5 * (1 + Math.floor(r() * 40)));
    prodLines.push([id, ndc, 'HUMAN PRESCRIPTION DRUG', brand, '', generic, pick(FORMS), 'ORAL', '20150101', '', 'ANDA', `ANDA${String(200000 + i).slice(-6)}`, labeler, generic.toUpperCase(), strength, 'mg/1', '', '', 'N', '20201231'].join('\t'));
    products.push({ ndc, brand, generic, labeler });
    const count = 1 + Math.floor(r() * 3);
    for (let j = 0; j < count; j++) {
      const pkg = `${ndc}-${String(10 * j + Math.floor(r() * 10)).padStart(k, '0').slice(-k)}`;
      if (seen.has(toNdc11(pkg)!)) continue;
      seen.add(toNdc11(pkg)!);
      packages.push(pkg);
      pkgLines.push([id, ndc, pkg, `30 TABLET in 1 BOTTLE (${pkg})`, '20150101', '', 'N', 'N'].join('\t'));
    }
  }
  await writeFile(join(dir, 'product.txt'), Buffer.from(prodLines.join('\r\n') + '\r\n', 'latin1'));
  await writeFile(join(dir, 'package.txt'), Buffer.from(pkgLines.join('\r\n') + '\r\n', 'latin1'));
  return { packages, products, packageCount: pkgLines.length - 1 };
}

/** Typos a user makes: a letter dropped, two swapped, one doubled. */
function typo(s: string, r: () => number): string {
  const i = 1 + Math.floor(r() * (s.length - 2));
  const kind = Math.floor(r() * 3);
  if (kind === 0) return s.slice(0, i) + s.slice(i + 1);
  if (kind === 1) return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2);
  return s.slice(0, i) + s[i] + s.slice(i);
}

/**
 * Drug package lookup and product search over a generated directory the size of openFDA's 2020
 * export (111,502 products), ingested from FDA's text layout and served. Lookups (every accepted
 * NDC form) and repeated searches against the bare Koa route, warm, medians of 3; search latency
 * with every query new (no answer cache), one connection, so p99 is the search itself.
 * Targets: lookups >= 0.8x bare; search p99 < 20 ms.
 */
export async function run(): Promise<Record<string, string | number>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'rcm-bench-drugs-'));
  const src = join(dir, 'src');
  await (await import('node:fs/promises')).mkdir(src);
  const rows: Record<string, string | number>[] = [];
  const r = rng(7);
  try {
    const t0 = Date.now();
    const dirInfo = await writeDirectory(src, PRODUCTS);
    const genMs = Date.now() - t0;
    const wh = new Warehouse(dir);
    const t1 = Date.now();
    const summary = await ingestFiles(wh, { dataset: 'fda_ndc', files: [join(src, 'product.txt'), join(src, 'package.txt')], version: '2026-11-24', effectiveDate: '2026-11-24' });
    const ingestMs = Date.now() - t1;
    // Baseline: DuckDB's own reader of the same two files (tab, no quoting, CP1252 as Latin-1), every column VARCHAR.
    const readCsvMs = await readCsvBaselineMs([join(src, 'product.txt'), join(src, 'package.txt')], `header=true, all_varchar=true, delim='\t', quote='', escape='', encoding='latin-1'`);
    rows.push({ case: `ingest generated product.txt + package.txt: ${PRODUCTS.toLocaleString('en-US')} products, ${dirInfo.packageCount.toLocaleString('en-US')} packages (${summary.rows.toLocaleString('en-US')} rows with ingredients; files written in ${genMs} ms); baseline duckdb read_csv of both into memory`, 'req/s': '', 'p50 ms': ingestMs, 'p99 ms': '', 'non-2xx': summary.rejects, 'bare req/s': `${readCsvMs} ms`, 'ratio vs bare': ratio(ingestMs, readCsvMs) });
    const key = await benchKey(wh.path('state.sqlite'));
    const headers = { 'X-API-Key': key };
    // Baseline: the same server over the seeds alone (no large directory to build at mount).
    const { ms: seededStartMs, rss: seededRss } = await seededStart();
    const t2 = Date.now();
    const api = await spawnApi(dir);
    // The index is built at mount, before the server listens: start to listening is its cost.
    const startMs = Date.now() - t2;
    const bare = await spawnBare();
    try {
      const mb = (b: number) => `${Math.round(b / 2 ** 20)} MB`;
      rows.push({ case: `server start to listening, directory and index built at mount (RSS after); baseline the same server over the seeds alone`, 'req/s': '', 'p50 ms': startMs, 'p99 ms': '', 'non-2xx': '', 'bare req/s': `${seededStartMs} ms, ${mb(seededRss)}`, 'ratio vs bare': `${ratio(startMs, seededStartMs)}, RSS ${mb(await rssOf(api.proc.pid!))}` });
      const forms = (pkg: string) => [pkg, dashed542(toNdc11(pkg)!), toNdc11(pkg)!];
      const lookups = shuffle(
        dirInfo.packages.filter((_, i) => i % 113 === 0).flatMap((p) => forms(p).map((f) => `/v1/drugs/ndc/package/${f}`)),
        5,
      );
      // First pass: every path once (a package's three forms share one validated input, so one answer).
      const first = await load('package lookup, first pass', api.url, { paths: lookups, headers, connections: 16, amount: lookups.length });
      const bareFirst = await load('bare, same paths once', bare.url, { paths: lookups, connections: 16, amount: lookups.length });
      rows.push(benchRow(`package lookup, first pass: ${lookups.length} paths (${lookups.length / 3} packages x 3 forms: published, 11 digits dashed and bare), 16 conns`, first, bareFirst, first.requests_per_s / bareFirst.requests_per_s));
      rows.push(await warmPaired(`package lookup, the same paths again (answer cache), warm`, api.url, bare.url, lookups, headers));
      const queryOf = (i: number): string => {
        const p = dirInfo.products[Math.floor(r() * dirInfo.products.length)]!;
        switch (i % 6) {
          case 0:
            return p.brand.slice(0, 3 + Math.floor(r() * 4)); // a brand prefix
          case 1:
            return p.generic; // a generic name, salt included
          case 2:
            return typo(p.brand.length >= 5 ? p.brand : p.generic.split(' ')[0]!, r); // a misspelled name
          case 3:
            return p.labeler.split(' ')[0]!; // a labeler
          case 4:
            return i % 12 === 4 ? toProductNdc9(p.ndc)! : p.ndc; // a product NDC
          default:
            return `${p.generic.split(' ')[0]!.slice(0, 5)} ${p.labeler.split(' ')[0]!.slice(0, 4)}`; // two partial words
        }
      };
      const search = Array.from({ length: 3000 }, (_, i) => `/v1/drugs/ndc/search?q=${encodeURIComponent(queryOf(i))}&limit=20`);
      const distinct = [...new Set(search)];
      rows.push(...(await firstPassAndWarm('search, distinct queries (brand prefix, generic, typo, labeler, NDC, two words)', api.url, bare.url, distinct, headers)));
    } finally {
      await api.stop();
      await bare.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return rows;
}
