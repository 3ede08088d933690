import type { ClaimSink } from './explain.js';
import type { RemitClaim, RemitExplanation, RemitTransaction } from './schemas.js';

/** Text gathered before it is handed on: about what one socket write or thread message carries well. */
const CHUNK = 256 * 1024;

/**
 * An explanation written as JSON in the order it is produced, one claim at a time, so neither the
 * explainer nor the writer holds more than a claim and a chunk: `{"as_of", "transactions": [{its
 * header..., "claims": [...], "provider_adjustments": [...], "reconciliation"}, ...],
 * "acknowledgments", "findings", "summary", "worklist", "reversals", "reliability"}` (the members known only at the end come last). Every
 * `out` is awaited: the reader's pace (HTTP backpressure, a worker's credit) holds the explainer.
 * The same writer serves the route in process, on the worker pool and in the CLI, so the bytes
 * are the same whichever ran it.
 */
export class ExplanationWriter implements ClaimSink {
  private pending = '';
  private txs = 0;
  private claimsInTx = 0;

  constructor(private readonly out: (text: string) => Promise<void>) {}

  private async put(s: string): Promise<void> {
    this.pending += s;
    if (this.pending.length >= CHUNK) await this.flush();
  }

  private async flush(): Promise<void> {
    if (!this.pending) return;
    const text = this.pending;
    this.pending = '';
    await this.out(text);
  }

  /** The opening: `file` first when the explanation is one of a batch's files. */
  async start(asOf: string, file?: string): Promise<void> {
    await this.put(`{${file === undefined ? '' : `"file":${JSON.stringify(file)},`}"as_of":${JSON.stringify(asOf)},"transactions":[`);
  }

  async transaction(tx: RemitTransaction, phase: 'begin' | 'end'): Promise<void> {
    if (phase === 'begin') {
      const { claims: _claims, provider_adjustments: _plb, reconciliation: _r, ...header } = tx;
      const head = JSON.stringify(header);
      this.claimsInTx = 0;
      await this.put(`${this.txs++ ? ',' : ''}${head.slice(0, -1)},"claims":[`);
    } else {
      await this.put(`],"provider_adjustments":${JSON.stringify(tx.provider_adjustments)},"reconciliation":${JSON.stringify(tx.reconciliation)}}`);
    }
  }

  async claim(_tx: RemitTransaction, claim: RemitClaim): Promise<void> {
    await this.put(`${this.claimsInTx++ ? ',' : ''}${JSON.stringify(claim)}`);
  }

  /** A list member by member: a 277CA of 100,000 claims is never one string. */
  private async list(name: string, xs: readonly unknown[]): Promise<void> {
    await this.put(`,${JSON.stringify(name)}:[`);
    for (let i = 0; i < xs.length; i++) await this.put(`${i ? ',' : ''}${JSON.stringify(xs[i])}`);
    await this.put(']');
  }

  /** The members known at the end, and the closing brace; then the last chunk. */
  async end(e: ExplanationTail): Promise<void> {
    await this.put(']');
    await this.list('acknowledgments', e.acknowledgments);
    await this.list('findings', e.findings);
    await this.put(`,"summary":${JSON.stringify(e.summary)}`);
    await this.list('worklist', e.worklist);
    await this.list('reversals', e.reversals);
    if (e.truncated !== undefined) await this.put(`,"truncated":${JSON.stringify(e.truncated)}`);
    await this.put(`,"reliability":${JSON.stringify(e.reliability)}}`);
    await this.flush();
  }
}

/** What an explanation ends with, after its transactions. */
export type ExplanationTail = Pick<RemitExplanation, 'acknowledgments' | 'findings' | 'summary' | 'worklist' | 'reversals' | 'reliability'> & Partial<Pick<RemitExplanation, 'truncated'>>;
