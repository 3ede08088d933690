import { CITE_CO_TEAM } from './co_surgeon.js';
import { SOURCES, type PaymentRule } from './rule.js';

/** Modifier 66 by the RVU file's TEAM SURG indicator: 1 and 2 are priced by report by the MAC; 0 and 9 are not payable as team surgery. Either way, no amount. */
export const teamSurgery: PaymentRule = {
  id: 'team_surgery',
  modifiers: ['66'],
  applies_to: 'a line with modifier 66, by the TEAM SURG indicator of the priced RVU row',
  does: 'no physician amount: indicators 1 and 2 are priced by report by the MAC; 0, 9: not payable',
  block: 'physician',
  citation: { title: CITE_CO_TEAM, url: SOURCES.claimsManualCh12 },
  physician({ code, modifiers, indicators }) {
    if (!modifiers.includes('66')) return null;
    const i = indicators.team_surg;
    return {
      not_priced:
        i === '1' || i === '2'
          ? `modifier 66: team surgery on ${code} (team surgery indicator ${i}) is priced by report by the MAC; no amount (${CITE_CO_TEAM})`
          : `modifier 66: ${code} has team surgery indicator ${i || '(blank)'} (${i === '0' ? 'team surgeons not permitted' : 'the team concept does not apply'}): not payable as team surgery (${CITE_CO_TEAM})`,
    };
  },
};
