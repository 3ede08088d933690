import { readRegistryBody, type NppesRegistry } from '../server/npi/registry.js';

/** An NPPES API v2.1 record re-typed from the public registry (NPI 1720377294), trimmed to what the mapper reads and a little more. */
export const HIZA = {
  enumeration_type: 'NPI-1',
  number: 1720377294,
  basic: { first_name: 'ELISE', last_name: 'HIZA', middle_name: 'AILEEN', credential: 'M.D.', gender: 'F', enumeration_date: '2011-04-05', last_updated: '2018-05-08', status: 'A', name: 'HIZA ELISE' },
  addresses: [
    { address_purpose: 'LOCATION', address_1: '111 VICTORIA RD', address_2: '', city: 'ASHEVILLE', state: 'NC', postal_code: '288014811', telephone_number: '828-252-7331' },
    { address_purpose: 'MAILING', address_1: 'PO BOX 1', address_2: '', city: 'ASHEVILLE', state: 'NC', postal_code: '28801', telephone_number: '828-252-7331' },
  ],
  taxonomies: [
    { code: '207X00000X', desc: 'Orthopaedic Surgery', primary: true, state: 'NC', license: '2017-01132' },
    { code: '390200000X', desc: 'Student in an Organized Health Care Education/Training Program', primary: false, state: '', license: '' },
  ],
};

/** A registry that knows only HIZA (no network): the contract test's documented answer. */
export const fixtureRegistry: NppesRegistry = {
  lookup: async (npi) => readRegistryBody({ result_count: npi === HIZA.number.toString() ? 1 : 0, results: npi === HIZA.number.toString() ? [HIZA] : [] }, npi),
};
