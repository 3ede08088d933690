/**
 * Mutations of X12 text for the bounded fuzz suites (835 explanation, 837 check): deterministic,
 * so a failure repeats.
 */

/** A small deterministic PRNG (mulberry32): the same cases every run. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** What an insertion puts in: separators, control bytes, envelope and 835 segment starts, signs and absurd numbers (an amount is replaced by one of the five from index 12). */
export const PIECES = ['*', ':', '~', '^', '\n', '\u0000', '\uFFFD', 'ISA', 'ST*835*1', 'SE*1*1', 'CLP*', 'SVC*HC:', 'CAS*CO*', '-', '.', '1e308', '99999999999999999999.999', '-0', 'NaN', ' '];

/** One random change to an X12 text: a cut, an inserted piece, a truncation, a repeated or dropped segment, an absurd amount, a segment's elements reversed. */
export function mutate(text: string, r: () => number, pieces: readonly string[] = PIECES): string {
  const at = () => Math.floor(r() * (text.length + 1));
  switch (Math.floor(r() * 7)) {
    case 0: {
      const i = at();
      return text.slice(0, i) + text.slice(i + 1 + Math.floor(r() * 20));
    }
    case 1: {
      const i = at();
      return text.slice(0, i) + pieces[Math.floor(r() * pieces.length)] + text.slice(i);
    }
    case 2:
      return text.slice(0, at());
    case 3: {
      const segs = text.split('~');
      const i = Math.floor(r() * segs.length);
      segs.splice(i, 0, segs[Math.floor(r() * segs.length)]!);
      return segs.join('~');
    }
    case 4: {
      const segs = text.split('~');
      segs.splice(Math.floor(r() * segs.length), 1);
      return segs.join('~');
    }
    case 5:
      // An amount or count element replaced by something absurd.
      return text.replace(/\*(\d+(?:\.\d+)?)(?=[*~])/g, (m) => (r() < 0.15 ? `*${pieces[12 + Math.floor(r() * 5)]}` : m));
    default: {
      const segs = text.split('~');
      const i = Math.floor(r() * segs.length);
      const els = segs[i]!.split('*');
      els.reverse();
      segs[i] = els.join('*');
      return segs.join('~');
    }
  }
}

/** The pieces for an 837: its segment starts in place of the 835's, in the same places. */
export const PIECES_837 = ['*', ':', '~', '^', '\n', '\u0000', '\uFFFD', 'ISA', 'ST*837*1', 'SE*1*1', 'CLM*', 'SV1*HC:', 'HI*ABK:', '-', '.', '1e308', '99999999999999999999.999', '-0', 'NaN', ' '];
