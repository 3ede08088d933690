import { findHcpcsForNdc } from '../../datasets/asp_crosswalk/queries.js';
import { findPublishedPackageNdcs } from '../../datasets/fda_ndc/queries.js';
import { toNdc11 } from '../../datasets/_shared/ndc.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { lineDate, type Checking } from './checks.js';
import { observed, predicted } from './findings.js';

/**
 * A drug line's NDC (2410 LIN*N4): 11 digits; listed in FDA's NDC directory; and billed under the
 * line's HCPCS code by the CMS ASP NDC-HCPCS crosswalk. An NDC the crosswalk places under another
 * code is a mismatch the payer denies as an invalid NDC (CO-16, M119); one it does not list
 * decides nothing (`no_data`); a crosswalk or directory not loaded leaves the check `unchecked`.
 */
export async function checkNdcs(snapshot: SnapshotReader, k: Checking): Promise<void> {
  const { claim } = k;
  const drugs = claim.lines.map((l, i) => ({ l, i })).filter(({ l }) => l.ndc !== null);
  if (drugs.length === 0) return;
  const ndc11s = drugs.map(({ l }) => toNdc11(l.ndc!)).filter((n): n is string => !!n);
  const fda = await findPublishedPackageNdcs(snapshot, ndc11s);
  const crosswalk = snapshot.versions('asp_crosswalk').length > 0;
  if (!fda) k.unchecked.push({ check: 'ndc', reason: 'fda_ndc is not loaded: NDCs were not looked up' });
  if (!crosswalk) k.unchecked.push({ check: 'ndc', reason: 'asp_crosswalk is not loaded: NDCs were not matched to their HCPCS codes' });
  for (const { l, i } of drugs) {
    const facts = { dateOfService: lineDate(claim, l), modifiers: l.modifiers };
    const at = { segment: l.ndc_segment ?? l.segment, lines: [l.line_number], facts };
    const ndc11 = toNdc11(l.ndc!);
    if (!ndc11) {
      k.lineFindings[i]!.push(predicted(k.c, 'ndc', { ...at, message: `line ${l.line_number}'s NDC (LIN03) is not an 11-digit package NDC`, fix: 'correct_structure' }));
      continue;
    }
    if (fda && !fda.byNdc11.has(ndc11)) k.lineFindings[i]!.push(predicted(k.c, 'ndc', { ...at, status: 'warn', message: `NDC ${ndc11} is not in FDA's NDC directory (fda_ndc ${fda.version}): a package no longer listed is denied as invalid` }));
    if (!crosswalk || !l.code) continue;
    const links = await findHcpcsForNdc(snapshot, ndc11);
    if (links.length === 0) k.lineFindings[i]!.push(observed('ndc', 'no_data', `NDC ${ndc11} is not in the ASP NDC-HCPCS crosswalk (asp_crosswalk ${snapshot.versions('asp_crosswalk').at(-1)!.version})`, at.segment, at.lines));
    else if (links.some((x) => x.hcpcs_code === l.code)) k.lineFindings[i]!.push(observed('ndc', 'pass', `NDC ${ndc11} is billed under ${l.code} (asp_crosswalk ${links[0]!.version})`, at.segment, at.lines));
    else k.lineFindings[i]!.push(predicted(k.c, 'ndc', { ...at, message: `NDC ${ndc11} is billed under ${[...new Set(links.map((x) => x.hcpcs_code))].join(', ')}, not ${l.code}, by the ASP NDC-HCPCS crosswalk (asp_crosswalk ${links[0]!.version})` }));
  }
}
