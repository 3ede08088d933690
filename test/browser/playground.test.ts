import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
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
    // leaves out the service's own endpoints (tag system) and the PDF upload it cannot send (a text
    // body, the 835 of POST /v1/remittances/explain, is pasted or read from a file).
    const playgroundKey = { scopes: ['knowledge' as const], key_type: 'test' as const };
    const binary = (r: (typeof pages.t.srv.routes)[number]) => r.body?.kind === 'raw' && !/^(text\/|application\/edi-)/.test(r.body.contentType);
    const expected = pages.t.srv.routes
      .filter((r) => r.tag !== 'system' && !binary(r) && canCall(r.auth, playgroundKey))
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect([...listed].sort()).toEqual([...expected].sort());
    expect(listed.filter((k) => k.includes('/v1/340b/watches'))).toEqual([]);
    for (const never of ['GET /v1/metrics', 'GET /v1/prior-auth/determinations/{id}', 'POST /v1/agents/denial-resolution', 'POST /v1/policy/parse']) expect(listed).not.toContain(never);
    // Operations open to a test key stay: the customer-document routes take one on the test host.
    expect(listed).toContain('POST /v1/policy/retrieve');
    expect(listed).toContain('POST /v1/remittances/explain');
    expect(await page.textContent('#hidden')).toBe(`Not listed: ${pages.t.srv.routes.length - expected.length - pages.t.srv.routes.filter((r) => r.tag === 'system').length} operations that need a live key, another scope or a binary file upload (a PDF), which this test key (scope knowledge) and page cannot give (see the API reference).`);
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
    // Generated from the schema: an optional date (default today), an enum as a select, the lines as fieldsets.
    expect(await page.inputValue('#body-date_of_service')).toBe('2026-08-01');
    expect(await page.$eval('#body-date_of_service', (i) => (i as HTMLInputElement).required)).toBe(false);
    expect(await page.textContent('label[for="body-date_of_service"]')).toMatch(/^date_of_service \(YYYY-MM-DD/);
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

describe('playground remittance', () => {
  const SAMPLE = resolve(import.meta.dirname, '../../samples/remittance/medicare.835');

  /** The explain operation with the sample's date and locality filled in. */
  async function explainPage(): Promise<Page> {
    const page = await playground('POST /v1/remittances/explain');
    await page.fill('#param-as_of', '2026-08-10');
    await page.fill('#param-locality', '1320201');
    return page;
  }

  it('takes a pasted 835, sends it as application/edi-x12 and shows the worklist as a table above the JSON', async () => {
    const page = await explainPage();
    expect(await page.isVisible('#body-text')).toBe(true);
    const sample = await readFile(SAMPLE, 'utf8');
    await page.fill('#body-text', sample);
    const request = page.waitForRequest((r) => r.url().includes('/v1/remittances/explain') && r.method() === 'POST');
    const { status, answer } = await send(page);
    const sent = await request;
    expect(sent.headers()['content-type']).toBe('application/edi-x12');
    expect(sent.postData()).toBe(sample);
    expect(status).toMatch(/^200/);
    expect(answer.worklist.length).toBeGreaterThan(2);
    expect(await page.textContent('#worklist h3')).toBe(`Worklist: ${answer.worklist.length} items, earliest deadline first`);
    expect(await page.$$eval('#worklist th', (ths) => ths.map((t) => t.textContent))).toEqual(['Payer', 'Group-reason', 'Remedy', 'Count', 'Amount', 'Earliest deadline']);
    const rows = await page.$$eval('#worklist tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    // One row per worklist item, in the answer's order (earliest deadline first).
    expect(rows).toHaveLength(answer.worklist.length);
    const first = answer.worklist[0];
    expect(rows[0]).toEqual([first.payer, `${first.group}-${first.reason}`, first.remedy.replace(/_/g, ' '), String(first.count), money(first.amount), first.earliest_deadline]);
    expect(rows).toContainEqual(['medicare_ffs', 'CO-97', 'reopen', '1', '$100.00', '2027-08-03']);
    expect(rows).toContainEqual(['medicare_ffs', 'underpaid 99213', 'reopen', '1', '$0.61', '2027-08-03']);
    // Above the raw JSON, which stays closed.
    expect(await page.$eval('#worklist', (w) => w.compareDocumentPosition(document.getElementById('raw')!) & Node.DOCUMENT_POSITION_FOLLOWING)).toBeTruthy();
    expect(await page.$eval('#raw', (d) => (d as HTMLDetailsElement).open)).toBe(false);
    // The curl sends the file rather than copying it into the command.
    expect(await page.textContent('#curl')).toContain("-H 'Content-Type: application/edi-x12' --data-binary '@remittance.835'");
    await page.screenshot({ path: join(ARTIFACTS, 'playground-remittance.png'), fullPage: true });
    expect(pages.outside).toEqual([]);
    await page.close();
  });

  it('reads a chosen file into the box and sends the file itself', async () => {
    const page = await explainPage();
    await page.setInputFiles('#body-file', SAMPLE);
    const sample = await readFile(SAMPLE, 'utf8');
    await page.waitForFunction((n) => (document.getElementById('body-text') as HTMLTextAreaElement).value.length === n, sample.length);
    expect(await page.inputValue('#body-text')).toBe(sample);
    const request = page.waitForRequest((r) => r.url().includes('/v1/remittances/explain') && r.method() === 'POST');
    const { status } = await send(page);
    const sent = await request;
    expect(status).toMatch(/^200/);
    expect(sent.headers()['content-type']).toBe('application/edi-x12');
    expect(sent.postData()).toBe(sample);
    expect(await page.textContent('#curl')).toContain("--data-binary '@medicare.835'");
    expect(await page.$$eval('#worklist tbody tr', (trs) => trs.length)).toBeGreaterThan(2);
    await page.close();
  });

  it('does not send an empty body', async () => {
    const page = await explainPage();
    await page.click('#send');
    expect(await page.textContent('#status')).toBe('not sent: the body is empty: paste the file or choose one');
    await page.close();
  });
});
