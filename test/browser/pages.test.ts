import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS, usePages } from './chromium.js';

const pages = usePages();

const open = (path: string): Promise<Page> => pages.open(path);

describe('playground', () => {
  it('sends GET /v1/codes/{code}/payment with a minted test key and shows the answer and the curl line', async () => {
    const page = await open('/playground');
    await page.waitForSelector('body[data-ready="true"]');
    const value = await page.$eval('#operation', (sel) => {
      const opt = [...(sel as HTMLSelectElement).options].find((o) => o.dataset.key === 'GET /v1/codes/{code}/payment');
      return opt?.value ?? '';
    });
    expect(value).not.toBe('');
    await page.selectOption('#operation', value);
    await page.fill('#param-code', '99213');
    await page.fill('#param-locality', '1320201');
    await page.fill('#param-date_of_service', '2025-11-03');
    await page.click('#send');
    await page.waitForFunction(() => document.getElementById('response')?.textContent?.includes('allowed_phy_payment'));
    expect(await page.textContent('#status')).toMatch(/^200/);
    const answer = JSON.parse((await page.textContent('#response'))!);
    // PPRRVU2025_Oct.csv 99213 (1.30/1.35/0.10) x GPCI Manhattan (1.064/1.162/1.586) = 3.1105, x its CONV FACTOR 32.3465 = $100.61
    expect(answer.physician.allowed_phy_payment).toBe(100.61);
    const curl = (await page.textContent('#curl'))!;
    expect(curl).toMatch(/'http:\/\/127\.0\.0\.1:\d+\/v1\/codes\/99213\/payment\?[^']*'$/);
    expect(curl).toContain('locality=1320201');
    expect(curl).toContain('date_of_service=2025-11-03');
    expect(curl).toMatch(/X-API-Key: kp_test_[A-Za-z0-9]{32}/);
    expect(await page.textContent('#key')).toMatch(/expires/);
    await page.screenshot({ path: join(ARTIFACTS, 'playground.png'), fullPage: true });
    expect(pages.outside).toEqual([]);
    await page.close();
  });
});

describe('playground for a first-time visitor', () => {
  it('opens on a knowledge route the minted key can call: the first Send answers 200, read as a person reads it', async () => {
    const page = await open('/playground');
    const csp: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
    });
    await page.waitForSelector('body[data-ready="true"]');
    // No agents or audit routes in the list: the minted key has the knowledge scope only.
    const keys = await page.$$eval('#operation option', (os) => os.map((o) => (o as HTMLOptionElement).dataset.key));
    expect(keys.some((k) => k?.includes('/v1/agents/'))).toBe(false);
    expect(await page.$eval('#operation', (s) => (s as HTMLSelectElement).selectedOptions[0]!.dataset.key)).toBe('GET /v1/codes/{code}/payment');
    await page.click('#send');
    await page.waitForFunction(() => document.getElementById('readable')?.textContent?.includes('Estimated payment'));
    expect(await page.textContent('#status')).toMatch(/^200/);
    const readable = (await page.textContent('#readable'))!;
    // The documented example: 99213 in Manhattan on 2025-11-03, $100.61 (non-facility).
    expect(readable).toContain('$100.61');
    expect(readable).toMatch(/physician: \$100\.61/);
    expect(readable).toMatch(/Data: .*mpfs_rvu 2025D/);
    // The logo and favicon are served by the service and allowed by the page's own CSP.
    expect(await page.$eval('#logo', (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0)).toBe(true);
    expect(await page.$eval('link[rel="icon"]', (l) => (l as HTMLLinkElement).href)).toMatch(/\/favicon\.svg$/);
    const icon = await page.request.get(`${pages.base}/favicon.svg`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/svg+xml');
    expect(csp).toEqual([]);
    expect(pages.outside).toEqual([]);
    await page.close();
  });

  it('is usable at phone width: one column, nothing wider than the screen, Send still answers', async () => {
    const page = await pages.browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${pages.base}/playground`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('#send');
    await page.waitForFunction(() => document.getElementById('readable')?.textContent?.includes('Estimated payment'));
    const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, view: window.innerWidth }));
    expect(widths.doc).toBeLessThanOrEqual(widths.view);
    const cols = await page.$eval('main', (m) => getComputedStyle(m).gridTemplateColumns.split(' ').length);
    expect(cols).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-phone.png'), fullPage: true });
    await page.close();
  });
});

describe('API reference', () => {
  it('renders the served OpenAPI document with assets served by the service itself, and its CSP refuses nothing', async () => {
    const csp: string[] = [];
    const page = await pages.open('/docs', { csp });
    await page.waitForSelector('h1:has-text("Revenue-cycle knowledge API")', { timeout: 30_000 });
    // The side menu's credit line renders its image from the page itself (no CDN).
    await page.waitForSelector('a[href="https://redocly.com/redoc/"]');
    expect(await page.$$eval('img', (imgs) => imgs.map((i) => (i as HTMLImageElement).src).filter((s) => !s.startsWith(location.origin) && !s.startsWith('data:')))).toEqual([]);
    // Operations are listed from the document, e.g. the payment composition in the side menu.
    expect(await page.locator('text=Payment composition').count()).toBeGreaterThan(0);
    expect(await page.title()).toContain('API reference');
    await page.screenshot({ path: join(ARTIFACTS, 'docs.png') });
    expect(csp).toEqual([]);
    expect(pages.outside).toEqual([]);
    await page.close();
  });
});
