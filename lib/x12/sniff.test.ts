import { describe, expect, it } from 'vitest';
import { looksLikeX12, transactionSets } from './sniff.js';

const ISA = 'ISA*00*          *00*          *ZZ*PAYERID        *ZZ*PROVIDERID     *260803*1200*^*00501*000000001*0*T*:~';

describe('whether a file is X12', () => {
  it('takes an ISA at the start, after a byte-order mark, blank lines or a paragraph of prose, with any element separator', () => {
    expect(looksLikeX12(`${ISA}GS*HP*A*B~`)).toBe(true);
    expect(looksLikeX12(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ISA)]))).toBe(true);
    expect(looksLikeX12(`\n\n  ${ISA}`)).toBe(true);
    // stupidedi's TR3 scenario: a prose paragraph, then ISA with `+` as the element separator.
    expect(looksLikeX12('Business Scenario 1 - Dollars and data are sent together.\nISA+00+          +00+          +ZZ+123\n')).toBe(true);
    expect(looksLikeX12('ISA~00~          ~01~SECRET    ~ZZ~SUBMITTERS.ID  ~')).toBe(true);
  });

  it('takes a file without ISA that starts with ST, GS, BPR or TRN as X12 writes them', () => {
    expect(looksLikeX12('ST*835*1234~BPR*I*1922.86*C*CHK~')).toBe(true);
    expect(looksLikeX12('GS*HC*SENDER CODE*RECEIVER CODE*19991231*0802*1*X*005010X222~')).toBe(true);
    expect(looksLikeX12('BPR*I*1922.86*C*CHK************20110108~TRN*1*0279*1~')).toBe(true);
    expect(looksLikeX12('\ufeffTRN*1*EFT0001*1123456789~')).toBe(true);
  });

  it('refuses a CSV (even one with an ISA or ST column), a PDF, a README, prose and an empty file', () => {
    expect(looksLikeX12('file,ISA,amount\na.835,ISA,12.00\n')).toBe(false);
    expect(looksLikeX12('ST,CITY,ZIP\nNY,NEW YORK,10001\n')).toBe(false);
    expect(looksLikeX12('%PDF-1.7\n%\u00e2\u00e3\n')).toBe(false);
    expect(looksLikeX12('# Remittances\n\nThe 835 files of August; VISA*1 is not a segment.\n')).toBe(false);
    expect(looksLikeX12('PATIENT JANE DOE, DOB 1950-01-01')).toBe(false);
    expect(looksLikeX12('')).toBe(false);
    expect(looksLikeX12(Buffer.alloc(0))).toBe(false);
  });
});

describe('the transaction sets of a file', () => {
  it('names each ST01 once, in order, with any element separator', () => {
    expect(transactionSets(`${ISA}GS*HP*A*B~ST*835*0001~BPR*I~SE*3*0001~ST*835*0002~SE*2*0002~`)).toEqual(['835']);
    expect(transactionSets('ISA+00+ ~GS+HC+A~ST+837+0001+005010X222A1~SE+2+0001~ST+999+1~')).toEqual(['837', '999']);
  });

  it('finds none in a CSV with an ST column or in prose', () => {
    expect(transactionSets('ST,CITY\nNY,NEW YORK\n')).toEqual([]);
    expect(transactionSets('FIRST*835 is not a segment')).toEqual([]);
  });
});
