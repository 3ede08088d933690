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
