import type { ClaimEdit } from './edit.js';

/**
 * A code no loaded file knows for its date (physician RVUs, OPPS, CLFS, DMEPOS, the NCCI files) is
 * `no_data`, never a silent pass: its edits cannot be checked, and the other edits skip it.
 */
export const unknownCode: ClaimEdit = {
  id: 'unknown_code',
  kinds: ['code'],
  applies_to: 'every line',
  does: 'no_data for a code in none of the loaded code sets on its date: its edits cannot be checked',
  citation: {
    title: 'CMS National Correct Coding Initiative edits: the PTP, MUE and add-on code files of each quarter, which an edit is checked against',
    url: 'https://www.cms.gov/medicare/coding-billing/national-correct-coding-initiative-ncci-edits',
  },
  check(c) {
    for (const l of c.lines) {
      if (c.known(l)) continue;
      c.findings.push({
        kind: 'code',
        status: 'no_data',
        line_ids: [l.line_id],
        codes: [l.code],
        message: `${l.code} (line ${l.line_id}) is in none of the loaded code sets (physician RVUs, OPPS, CLFS, DMEPOS, NCCI) for ${l.date_of_service}: its edits cannot be checked`,
        edit: null,
        rule: null,
      });
    }
  },
};
