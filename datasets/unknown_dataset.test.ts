import { describe, expect, it } from 'vitest';
import { unknownDataset } from './registry.js';

describe('an unknown dataset id', () => {
  it('suggests the id a folder or a person spells otherwise, the ids a fragment names, else lists them all', () => {
    expect(unknownDataset('mpfs-rvu')).toBe("unknown dataset 'mpfs-rvu': did you mean mpfs_rvu?");
    expect(unknownDataset('FDA NDC')).toBe("unknown dataset 'FDA NDC': did you mean fda_ndc?");
    expect(unknownDataset('ptp_prac')).toBe("unknown dataset 'ptp_prac': did you mean one of ncci_ptp_prac, medicaid_ptp_prac?");
    expect(unknownDataset('nope')).toMatch(/^unknown dataset 'nope' \(known: .*mpfs_rvu.*\)$/);
  });
});
