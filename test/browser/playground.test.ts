import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { canCall } from '../../server/pipeline/auth.js';
import { ARTIFACTS, usePages } from './chromium.js';

const pages = usePages();

/** The playground, ready, with `op` (`METHOD /path`) selected. */
async function playground(op?: string): Promise<Page> {
  const page = await pages.open('/playground');
  await page.waitForSelector('body[data-ready="true"]');
  if (op) {
    const value = await page.$eval('#operation', (sel, k) => [...(sel as HTMLSelectElement).options].find((o) => o.dataset.key === k)?.value ?? '', op);
    expect(value, op).not.toBe('');
    await page.selectOption('#operation', value);
  }
  return page;
}

/** Clicks Send and returns the status line and the answer parsed from the raw JSON panel. */
async function send(page: Page): Promise<{ status: string; answer: any }> {
  await page.$eval('#status', (s) => (s.textContent = '—'));
  await page.click('#send');
  await page.waitForFunction(() => /^\d{3} /.test(document.getElementById('status')?.textContent ?? ''));
  return { status: (await page.textContent('#status'))!, answer: JSON.parse((await page.textContent('#response'))!) };
}

/** `$124.08` as the page writes amounts. */
const money = (n: number) => `$${n.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`;

describe('playground operation list', () => {
  it('lists exactly the operations the minted test key can call: no 340B watch, no admin, audit, agents or live-only operation', async () => {
    const page = await playground();
    const listed = await page.$$eval('#operation option', (os) => os.map((o) => (o as HTMLOptionElement).dataset.key!));
    // The pipeline's own rule for the page's key (test, knowledge), over the route table; the page
    // leaves out the service's own endpoints (tag system) and the PDF upload it cannot send.
    const playgroundKey = { scopes: ['knowledge' as const], key_type: 'test' as const };
    const expected = pages.t.srv.routes
      .filter((r) => r.tag !== 'system' && r.body?.kind !== 'raw' && canCall(r.auth, playgroundKey))
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect([...listed].sort()).toEqual([...expected].sort());
    expect(listed.filter((k) => k.includes('/v1/340b/watches'))).toEqual([]);
    for (const never of ['GET /v1/metrics', 'GET /v1/prior-auth/determinations/{id}', 'POST /v1/agents/denial-resolution', 'POST /v1/policy/parse']) expect(listed).not.toContain(never);
    // Operations open to a test key stay: the customer-document routes take one on the test host.
    expect(listed).toContain('POST /v1/policy/retrieve');
    expect(await page.textContent('#hidden')).toBe(`Not listed: ${pages.t.srv.routes.length - expected.length - pages.t.srv.routes.filter((r) => r.tag === 'system').length} operations that need a live key, another scope or a file upload, which this test key (scope knowledge) and page cannot give (see the API reference).`);
    await page.close();
  });
});

describe('playground decisions', () => {
  it("reads a knowledge resolve's decisions out above the raw JSON: prior authorization with its basis, the filing deadline with the days left, the payment", async () => {
    const page = await playground('POST /v1/knowledge/resolve');
    const { status, answer } = await send(page);
    expect(status).toMatch(/^200/);
    const pa = answer.layers.L4_payer_rules.prior_auth;
    const filing = answer.layers.L4_payer_rules.filing_rules[0];
    expect(pa.pa_required).toBe(true);
    const paLine = (await page.textContent('#decisions li[data-kind="prior_auth"]'))!;
    expect(paLine).toContain(`Prior authorization for ${answer.cpt}: required`);
    // Its basis: the tier that decided it, naming the rule.
    expect(paLine).toContain(`rule ${pa.source.id}`);
    expect(paLine).toContain('decided at: national');
    const deadlines = await page.$$eval('#decisions li[data-kind="deadline"]', (ls) => ls.map((l) => l.textContent));
    expect(deadlines[0]).toContain(`Filing deadline (initial claim): ${filing.deadline_date} (${filing.days_remaining} days left)`);
    expect(deadlines.some((d) => d?.startsWith('Appeal level 1: Redetermination'))).toBe(true);
    expect(await page.textContent('#decisions li[data-kind="payment"]')).toContain(`Estimated payment: ${money(answer.layers.L6_payment.estimated_payment_total)}`);
    expect(await page.textContent('#decisions li[data-kind="coverage"]')).toContain('covered');
    // Shown as text on the page, not inside the (closed) raw JSON panel.
    expect(await page.$eval('#decisions', (d) => d.closest('#raw') === null)).toBe(true);
    expect(await page.$eval('#raw', (d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.isVisible('#decisions li[data-kind="prior_auth"]')).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'playground-resolve.png'), fullPage: true });
    expect(pages.outside).toEqual([]);
    await page.close();
  });

  it("folds a degraded answer's warnings under one caveat line with their count", async () => {
    const page = await playground('POST /v1/knowledge/resolve');
    const { answer } = await send(page);
    const warnings: string[] = answer.reliability.warnings;
    expect(answer.reliability.degraded).toBe(true);
    expect(warnings.length).toBeGreaterThan(3);
    expect(await page.textContent('#caveat strong')).toMatch(/^Degraded answer/);
    expect(await page.textContent('#warnings summary')).toBe(`${warnings.length} warnings`);
    expect(await page.$eval('#warnings', (d) => (d as HTMLDetailsElement).open)).toBe(false);
    expect(await page.isVisible(`#warnings li:nth-child(1)`)).toBe(false);
    // The caveat is one line above the decisions, not the warnings themselves.
    expect(await page.$eval('#caveat', (c) => c.compareDocumentPosition(document.getElementById('decisions')!) & Node.DOCUMENT_POSITION_FOLLOWING)).toBeTruthy();
    await page.click('#warnings summary');
    expect(await page.isVisible(`#warnings li:nth-child(1)`)).toBe(true);
    expect(await page.$$eval('#warnings li', (ls) => ls.map((l) => l.textContent))).toEqual(warnings);
    await page.close();
  });
});

describe('playground request body form', () => {
  it('builds the form of POST /v1/ncci/validate from its schema, prefilled from its example, and sends what the form holds', async () => {
    const page = await playground('POST /v1/ncci/validate');
    // Generated from the schema: a required date, an enum as a select, the lines as fieldsets.
    expect(await page.inputValue('#body-date_of_service')).toBe('2026-08-01');
    expect(await page.$eval('#body-date_of_service', (i) => (i as HTMLInputElement).required)).toBe(true);
    expect(await page.textContent('label[for="body-date_of_service"]')).toMatch(/^date_of_service \*/);
    expect(await page.$$eval('#body-setting option', (os) => os.map((o) => o.textContent))).toEqual(['(choose)', 'prac', 'hosp']);
    expect(await page.$eval('#body-setting', (s) => (s as HTMLSelectElement).selectedOptions[0]!.textContent)).toBe('prac');
    expect(await page.inputValue('#body-lines-0-code')).toBe('99213');
    expect(await page.inputValue('#body-lines-0-modifiers')).toBe('25');
    expect(await page.getAttribute('#body-lines-0-units', 'type')).toBe('number');
    expect(await page.isVisible('#body')).toBe(false);
    // Edit it: two units on line 3, a fourth line, hospital setting.
    await page.fill('#body-lines-2-units', '2');
    await page.click('#body-lines-add');
    await page.fill('#body-lines-3-code', '99417');
    await page.selectOption('#body-setting', { label: 'hosp' });
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/ncci/validate') && r.method() === 'POST');
    const { status, answer } = await send(page);
    const sent = (await request).postDataJSON();
    expect(sent).toEqual({
      date_of_service: '2026-08-01',
      setting: 'hosp',
      lines: [{ code: '99213', modifiers: ['25'], units: 1 }, { code: '11042', units: 1 }, { code: '97597', units: 2 }, { code: '99417' }],
    });
    expect(status).toMatch(/^200/);
    expect(answer.setting).toBe('hosp');
    expect(answer.summary.lines).toBe(4);
    expect(await page.textContent('#decisions li[data-kind="ncci"]')).toMatch(/^NCCI edits: /);
    await page.close();
  });

  it('keeps the raw JSON a toggle away: the JSON shows what the form holds, and sends as typed', async () => {
    const page = await playground('POST /v1/knowledge/resolve');
    await page.fill('#body-units', '2');
    await page.click('#mode-json');
    expect(await page.isVisible('#body-form')).toBe(false);
    const shown = JSON.parse(await page.inputValue('#body'));
    expect(shown).toEqual({ ccn: '050454', cpt: '64490', payer: 'medicare_ffs', date_of_service: '2026-03-02', units: 2, dx_codes: ['M47.812'] });
    // What the form cannot hold goes in the JSON, sent as typed: here a field the schema refuses.
    await page.fill('#body', JSON.stringify({ ...shown, units: 1, surprise: true }));
    const request = page.waitForRequest((r) => r.url().endsWith('/v1/knowledge/resolve'));
    const { status, answer } = await send(page);
    expect((await request).postDataJSON()).toEqual({ ...shown, units: 1, surprise: true });
    expect(status).toMatch(/^422/);
    expect(answer.detail[0]).toMatchObject({ loc: ['body', 'surprise'] });
    // Back to the form: it shows the JSON's values.
    await page.fill('#body', JSON.stringify({ ...shown, units: 3 }));
    await page.click('#mode-form');
    expect(await page.inputValue('#body-units')).toBe('3');
    await page.close();
  });
});
