import { macIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { payerKnowledge } from '../../datasets/payers/queries.js';
import { x12Index } from '../../datasets/x12_codes/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { explainRemittance, type ClaimSink, type Explained } from './explain.js';
import { Linker, type PayeeLocation, type Progress } from './links.js';
import { readX12 } from './x12.js';

export type { ClaimSink } from './explain.js';

/**
 * The one way an 835 is explained (the route and `rcm remit explain` alike): read it, explain it
 * against the snapshot's code lists and payer rules as of `asOf`, link its lines to the NCCI edits,
 * MUEs, coverage documents and fee schedule amounts behind them (`where`: the payee's ccn or
 * locality for pricing, else the payee NPI's practice ZIP), and record what was read on the trace.
 * Throws the reader's 422 for a file that is not a readable 5010 835, and a 422 for a ccn or
 * locality that names nothing. Claims are kept in the answer, or, with `o.sink`, handed to it one
 * by one and dropped (a CSV of a large file holds one claim at a time); `o.progress` hears every
 * thousand claims.
 */
export async function explainFile(
  snapshot: SnapshotReader,
  bytes: Buffer | string,
  asOf: string,
  trace: Trace,
  where: PayeeLocation = {},
  o: { progress?: Progress; sink?: ClaimSink } = {},
): Promise<Omit<Explained, 'payersMatched'>> {
  const file = readX12(bytes);
  const x12 = await x12Index(snapshot);
  trace.use('x12_codes', x12.version || null);
  const payers = await payerKnowledge(snapshot).catch(() => null);
  trace.use('payers', payers?.version || null);
  const mac = await macIndex(snapshot);
  if (x12.count === 0) trace.degrade().warn('the x12_codes lists are not loaded: adjustments and remarks are not described');
  const linker = new Linker(snapshot, payers, where, trace, o.progress ? { total: file.claims, tell: o.progress } : undefined);
  await linker.check();
  const { payersMatched: _, ...out } = await explainRemittance(
    file,
    { x12, payers, mac, asOf, link: (tx, claim) => linker.link(tx, claim) },
    {
      async claim(tx, claim, index) {
        if (o.sink) await o.sink.claim(tx, claim, index);
        else tx.claims.push(claim);
      },
    },
  );
  linker.finish();
  return out;
}
