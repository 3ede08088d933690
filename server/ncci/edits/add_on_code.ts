import { ANY_PRIMARY } from '../../../datasets/ncci_aoc/dataset.js';
import type { AocEditUsed } from '../schemas.js';
import type { ClaimEdit } from './edit.js';

/**
 * Add-on codes: a type 1 add-on needs one of its listed primaries on the claim for the date; types 2
 * and 3 without a listed primary warn (the contractor decides). A line whose code failed the
 * Medicare code check is not paid, as an add-on or otherwise: its add-on check fails with that
 * reason rather than passing beside it (99417, PFS status I, with 99215).
 */
export const addOnCode: ClaimEdit = {
  id: 'add_on_code',
  kinds: ['aoc'],
  applies_to: 'each known line whose code is an add-on code on its date',
  does: 'passes an add-on billed with a listed primary; fails a type 1 add-on without one, or an add-on whose code Medicare does not pay; warns for types 2 and 3',
  citation: { title: 'CMS NCCI Add-on Code Edits: add-on codes of edit types 1, 2 and 3 and their primary codes', url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits/medicare-ncci-add-code-edits' },
  check(c) {
    const invalid = new Map(c.findings.filter((f) => f.kind === 'code' && f.status === 'fail').map((f) => [f.line_ids[0]!, f]));
    for (const l of c.checked) {
      const a = c.dayOf(l).aoc(l.code);
      if (!a) {
        c.warnings.add('ncci_aoc is not loaded: add-on codes were not checked');
        continue;
      }
      c.versions[a.dataset] = a.version;
      if (a.as_addon.length === 0) continue;
      const type = Math.min(...a.as_addon.map((r) => r.aoc_edit_type));
      const primaries = [...new Set(a.as_addon.map((r) => r.primary_code).filter((p) => p !== ANY_PRIMARY))];
      const present = c.checked.filter((o) => o !== l && o.date_of_service === l.date_of_service && primaries.includes(o.code));
      const edit: AocEditUsed = { type: 'aoc', dataset: a.dataset, version: a.version, addon_code: l.code, aoc_edit_type: type, primary_codes: primaries };
      const ids = [l.line_id, ...present.map((p) => p.line_id)];
      const bad = invalid.get(l.line_id);
      if (bad) {
        const withPrimary = present.length ? `; its primary ${present.map((p) => `${p.code} (line ${p.line_id})`).join(', ')} is on the claim, but` : ';';
        c.findings.push({ kind: 'aoc', status: 'fail', line_ids: ids, codes: [l.code, ...present.map((p) => p.code)], edit, rule: `AOC type ${type}`, ...(bad.citation ? { citation: bad.citation } : {}), message: `add-on ${l.code} (line ${l.line_id}) fails the Medicare code check (${bad.rule})${withPrimary} a code Medicare does not pay is not paid as an add-on either` });
      } else if (present.length) {
        c.findings.push({ kind: 'aoc', status: 'pass', line_ids: ids, codes: [l.code, ...present.map((p) => p.code)], edit, rule: `AOC type ${type}`, message: `add-on ${l.code} (line ${l.line_id}) is billed with its primary ${present.map((p) => `${p.code} (line ${p.line_id})`).join(', ')}` });
      } else if (type === 1) {
        c.findings.push({ kind: 'aoc', status: 'fail', line_ids: ids, codes: [l.code], edit, rule: 'AOC type 1', message: `add-on ${l.code} (line ${l.line_id}) has none of its primary codes on the claim for ${l.date_of_service} (type 1: only ${primaries.join(', ')} are acceptable primaries)` });
      } else {
        const detail = type === 2 ? 'type 2: CMS lists no primaries; your Medicare contractor decides which are acceptable' : `type 3: CMS lists ${primaries.join(', ')}; the contractor may accept other primaries`;
        c.findings.push({ kind: 'aoc', status: 'warn', line_ids: ids, codes: [l.code], edit, rule: `AOC type ${type}`, message: `add-on ${l.code} (line ${l.line_id}) has no listed primary code on the claim (${detail})` });
      }
    }
  },
};
