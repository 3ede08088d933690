import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * The two pages a developer evaluating the API opens first, served by the service itself (a
 * deployment may have no internet, so nothing loads from a CDN): `/docs`, the interactive API
 * reference (Redoc's standalone bundle over the served OpenAPI document), and `/playground`.
 */
interface Asset {
  type: string;
  body: Buffer;
}

const here = import.meta.dirname;
const read = (f: string) => readFileSync(join(here, f));

/**
 * Where Redoc 2.5's side-menu credit ("API docs by Redocly") loads its logo from, whatever the
 * options (no option hides it): a CDN the pages' CSP forbids (`img-src 'self' data:`), so every
 * visit logged a violation and a deployment without internet tried to reach it.
 */
const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
/** An empty image in its place: the credit keeps its text and link, and nothing leaves the page. */
const NO_LOGO = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='0' height='0'/%3E";

/** The Redoc bundle as served: its CDN logo replaced (the browser test fails if an upgrade moves it). */
function redocBundle(): Buffer {
  const require = createRequire(import.meta.url);
  return Buffer.from(readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8').replaceAll(REDOC_CDN_LOGO, NO_LOGO));
}

const HTML = 'text/html; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';
const SVG = 'image/svg+xml';

/** Pages and their assets by path (read once, on first use). */
let assets: Map<string, Asset> | undefined;
function load(): Map<string, Asset> {
  return (assets ??= new Map<string, Asset>([
    ['/docs', { type: HTML, body: read('docs.html') }],
    ['/docs/init.js', { type: JS, body: read('docs-init.js') }],
    ['/docs/redoc.standalone.js', { type: JS, body: redocBundle() }],
    ['/playground', { type: HTML, body: read('playground.html') }],
    ['/playground/app.js', { type: JS, body: read('playground.js') }],
    ['/playground/decisions.js', { type: JS, body: read('playground-decisions.js') }],
    ['/playground/form.js', { type: JS, body: read('playground-form.js') }],
    // The logo doubles as the favicon; served here, so the pages' own CSP (img-src 'self') allows it.
    ['/logo.svg', { type: SVG, body: read('logo.svg') }],
    ['/favicon.svg', { type: SVG, body: read('logo.svg') }],
    ['/favicon.ico', { type: SVG, body: read('logo.svg') }],
  ]));
}

/**
 * Same-origin only: scripts and connections to this service; Redoc's search runs in a blob:
 * worker and styled-components injects styles.
 */
const CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

/** The page or asset at `path`, with its headers; undefined when `path` is not a page. */
export function pageAt(path: string): { headers: Record<string, string>; body: Buffer } | undefined {
  const a = load().get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);
  if (!a) return undefined;
  return {
    headers: { 'content-type': a.type, 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=300' },
    body: a.body,
  };
}
