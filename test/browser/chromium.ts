import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startTestServer, type TestServer } from '../../testing/harness.js';

/** Screenshots of the pages, for a reviewer (not compared). */
export const ARTIFACTS = resolve(import.meta.dirname, '../../var/test-artifacts');

/** Debian's Chromium (`apt-get install chromium`), or the one RCM_CHROMIUM names. */
const CHROMIUM = process.env.RCM_CHROMIUM ?? '/usr/bin/chromium';

/** Headless Chromium with the flags for a sandboxed root session with a closed network (see the machine notes). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * A new page (a context of its own: no storage shared with other tests) at `base + path` that
 * records in `outside`, and refuses, every request leaving the server: the pages need no internet.
 * With `csp`, every Content Security Policy violation from the first byte on is recorded there too:
 * the console's report and the document's `securitypolicyviolation` event (directive and URL).
 */
export async function openPage(browser: Browser, base: string, path: string, outside: string[], o: { csp?: string[] } = {}): Promise<Page> {
  const page = await browser.newPage();
  const csp = o.csp;
  if (csp) {
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
    });
    await page.exposeFunction('rcmCspViolation', (v: string) => void csp.push(v));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { rcmCspViolation(v: string): void }).rcmCspViolation(`${e.violatedDirective} ${e.blockedURI}`));
    });
  }
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('blob:') || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  await page.goto(`${base}${path}`);
  return page;
}

/**
 * A seeded test server and a Chromium for this file's page tests, started before its tests and
 * closed after them; read the fields in tests. `outside` collects every request that tried to
 * leave the server (a page test expects it empty).
 */
export function usePages(): { readonly t: TestServer; readonly browser: Browser; readonly base: string; readonly outside: string[]; open(path: string, o?: { csp?: string[] }): Promise<Page> } {
  const ctx = {
    t: undefined as unknown as TestServer,
    browser: undefined as unknown as Browser,
    base: '',
    outside: [] as string[],
    open: (path: string, o?: { csp?: string[] }) => openPage(ctx.browser, ctx.base, path, ctx.outside, o),
  };
  beforeAll(async () => {
    ctx.t = await startTestServer();
    ctx.base = `http://127.0.0.1:${ctx.t.port}`;
    ctx.browser = await launchChromium();
    await mkdir(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await ctx.browser?.close();
    await ctx.t?.close();
  });
  return ctx;
}
