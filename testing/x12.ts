/** A hand-written 5010 835: segments between ST and SE (SE01 counted here), in one ISA/GS envelope. */
export function remit835(segments: string[], o: { payer?: string; date?: string; bpr?: string } = {}): string {
  const date = o.date ?? '20260105';
  const inner = [
    'ST*835*0001',
    `BPR*I*${o.bpr ?? '0'}*C*ACH*CCP*01*999999999*DA*123456*1234567890**01*999988880*DA*98765*${date}`,
    'TRN*1*EFT0001*1234567890',
    `N1*PR*${o.payer ?? 'MEDICARE'}`,
    'N1*PE*EXAMPLE CLINIC*XX*1234567893',
    'LX*1',
    ...segments,
  ];
  return [
    `ISA*00*          *00*          *ZZ*PAYERID        *ZZ*PROVIDERID     *${date.slice(2)}*1200*^*00501*000000001*0*T*:`,
    `GS*HP*PAYERID*PROVIDERID*${date}*1200*1*X*005010X221A1`,
    ...inner,
    `SE*${inner.length + 1}*0001`,
    'GE*1*1',
    'IEA*1*000000001',
  ].join('~\n') + '~\n';
}

/**
 * A generated 5010 835 of `claims` claims, 5 lines each: a Medicare remittance with a
 * contractual write-off and a deductible on every line and a bundled line in every claim.
 */
export function generated835(claims: number): string {
  const seg: string[] = ['ST*835*0001', 'BPR*I*0*C*ACH*CCP*01*999999999*DA*123456*1234567890**01*999988880*DA*98765*20260105', 'TRN*1*EFT0001*1234567890', 'N1*PR*MEDICARE', 'N1*PE*EXAMPLE CLINIC*XX*1234567893', 'LX*1'];
  const codes = ['99213', '99214', '93000', '36415', '97597'];
  for (let c = 0; c < claims; c++) {
    seg.push(`CLP*PCN${c}*1*500*240*60*MB*ICN${c}`);
    for (const [i, code] of codes.entries()) {
      if (i === 4) seg.push(`SVC*HC:${code}*100*0**1`, 'DTM*472*20251201', 'CAS*CO*97*100', 'LQ*HE*M80');
      else seg.push(`SVC*HC:${code}*100*60**1`, 'DTM*472*20251201', 'CAS*CO*45*25', 'CAS*PR*1*15');
    }
  }
  const body = [...seg, `SE*${seg.length + 1}*0001`];
  return ['ISA*00*          *00*          *ZZ*PAYERID        *ZZ*PROVIDERID     *260105*1200*^*00501*000000001*0*T*:', 'GS*HP*PAYERID*PROVIDERID*20260105*1200*1*X*005010X221A1', ...body, 'GE*1*1', 'IEA*1*000000001'].join('~\n') + '~\n';
}

/** A service line of `claim837`: its code, modifiers, units, charge, SV107 pointers and date. */
export interface Claim837Line {
  code: string;
  mods?: string[];
  units?: number;
  charge?: string;
  pointers?: string;
  date?: string;
  /** 2410 LIN*N4: the drug's 11-digit NDC. */
  ndc?: string;
}

/** A professional 837 (005010X222A1) of one or more claims, written as a practice's system would. */
export function claim837(claims: { pcn: string; lines: Claim837Line[]; dx?: string[]; total?: string; filing?: string; payer?: string; payerId?: string; member?: string; npi?: string; frequency?: string }[]): string {
  const seg: string[] = ['ST*837*0001*005010X222A1', 'BHT*0019*00*0001*20260815*1200*CH', 'NM1*41*2*EXAMPLE CLINIC*****46*SUB01', 'NM1*40*2*MEDICARE*****46*RCV01', 'HL*1**20*1', 'PRV*BI*PXC*207Q00000X', `NM1*85*2*EXAMPLE CLINIC*****XX*${claims[0]!.npi ?? '1234567893'}`, 'N3*1 MAIN ST', 'N4*NEW YORK*NY*10032', 'REF*EI*123456789'];
  claims.forEach((c, i) => {
    seg.push(`HL*${i + 2}*1*22*0`, `SBR*P*18*******${c.filing ?? 'MB'}`, `NM1*IL*1*DOE*JANE****MI*${c.member ?? '1EG4TE5MK72'}`, `NM1*PR*2*${c.payer ?? 'MEDICARE'}*****PI*${c.payerId ?? '13202'}`);
    const total = c.total ?? c.lines.reduce((s, l) => s + Number(l.charge ?? '100'), 0).toFixed(2);
    seg.push(`CLM*${c.pcn}*${total}***11:B:${c.frequency ?? '1'}*Y*A*Y*Y`, `HI*${(c.dx ?? ['M5416']).map((d, j) => `${j === 0 ? 'ABK' : 'ABF'}:${d}`).join('*')}`);
    c.lines.forEach((l, j) => {
      seg.push(`LX*${j + 1}`, `SV1*HC:${[l.code, ...(l.mods ?? [])].join(':')}*${l.charge ?? '100'}*UN*${l.units ?? 1}***${l.pointers ?? '1'}`, `DTP*472*D8*${(l.date ?? '2026-08-01').replace(/-/g, '')}`);
      if (l.ndc) seg.push(`LIN**N4*${l.ndc}`, 'CTP****1*UN');
    });
  });
  seg.push(`SE*${seg.length + 1}*0001`);
  return ['ISA*00*          *00*          *ZZ*SUBMITTER      *ZZ*RECEIVER       *260815*1200*^*00501*000000001*0*T*:', 'GS*HC*SUBMITTER*RECEIVER*20260815*1200*1*X*005010X222A1', ...seg, 'GE*1*1', 'IEA*1*000000001'].join('~\n') + '~\n';
}

/**
 * A generated 5010 837 professional file of `claims` Medicare claims, 5 lines each on 2026-08-03
 * (an NCCI quarter the seeds hold): a visit with 25, a debridement with its bundled 97597 (no
 * modifier), a venipuncture and an ECG; each claim its own patient.
 */
export function generated837(claims: number): string {
  const lines: Claim837Line[] = [{ code: '99213', mods: ['25'], charge: '150' }, { code: '11042', charge: '300' }, { code: '97597' }, { code: '36415', charge: '10' }, { code: '93000', charge: '40' }];
  const all = Array.from({ length: claims }, (_, i) => ({ pcn: `PCN${i}`, member: `${String(i).padStart(6, '0')}AA0000`.slice(0, 11), lines: lines.map((l) => ({ ...l, date: '2026-08-03' })) }));
  return claim837(all);
}
