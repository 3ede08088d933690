import { macIndex } from '../../datasets/mac_jurisdictions/queries.js';
import { payerKnowledge } from '../../datasets/payers/queries.js';
import { x12Index } from '../../datasets/x12_codes/queries.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import type { Trace } from '../trace.js';
import { explainRemittance, type ClaimSink, type ExplainInputs, type Explained } from './explain.js';
import { Linker, type PayeeLocation, type Progress } from './links/index.js';
import type { Batch } from './batch.js';
import { PostingCsvWriter, worklistCsv } from './posting.js';
import { REDACTED_WARNING, Redactor } from './redact.js';
import type { RemitFormat } from './schemas.js';
import { ExplanationWriter, type ExplanationTail } from './stream.js';
import { readX12, type X12File } from './x12.js';

export type { ClaimSink } from './explain.js';

/** Rows of the MCP tool's bounded summary: worklist items and findings each (the whole answer through REST or the CLI). */
export const SUMMARY_ROWS = 100;

/** What one explanation reads: the snapshot's code lists, payer knowledge, MACs and the line links. */
async function prepare(snapshot: SnapshotReader, file: X12File, asOf: string, trace: Trace, where: PayeeLocation, progress?: Progress): Promise<{ inputs: ExplainInputs; linker: Linker }> {
  const x12 = await x12Index(snapshot);
  trace.use('x12_codes', x12.version || null);
  const payers = await payerKnowledge(snapshot).catch(() => null);
  trace.use('payers', payers?.version || null);
  const mac = await macIndex(snapshot);
  if (x12.count === 0) trace.degrade().warn('the x12_codes lists are not loaded: adjustments and remarks are not described');
  const linker = new Linker(snapshot, payers, where, trace, progress ? { total: file.claims, tell: progress } : undefined);
  // A ccn or locality that names nothing is the caller's mistake: 422 before any byte is written.
  await linker.check();
  return { inputs: { x12, payers, mac, asOf, link: (tx, claim) => linker.link(tx, claim) }, linker };
}

/**
 * The one way an 835 is explained (the route and `rcm remit explain` alike): read it, explain it
 * against the snapshot's code lists and payer rules as of `asOf`, link its lines to the NCCI edits,
 * MUEs, coverage documents and fee schedule amounts behind them (`where`: the payee's ccn or
 * locality for pricing, else the payee NPI's practice ZIP), and record what was read on the trace.
 * Throws the reader's 422 for a file that is not a readable 5010 835, and a 422 for a ccn or
 * locality that names nothing. Claims are kept in the answer, or, with `o.sink`, handed to it one
 * by one and dropped (text and CSV of a large file hold one claim at a time); `o.progress` hears
 * every thousand claims.
 */
export async function explainFile(
  snapshot: SnapshotReader,
  bytes: Buffer | string,
  asOf: string,
  trace: Trace,
  where: PayeeLocation = {},
  o: { progress?: Progress; sink?: ClaimSink; batch?: Batch; redact?: Redactor | null } = {},
): Promise<Omit<Explained, 'payersMatched'>> {
  const file = readX12(bytes);
  const { inputs, linker } = await prepare(snapshot, file, asOf, trace, where, o.progress);
  const { payersMatched: _, ...out } = await explainRemittance(file, { ...inputs, batch: o.batch, redact: o.redact }, o.sink ?? { async claim(tx, claim) { tx.claims.push(claim); } });
  linker.finish();
  return out;
}

/** How much of an explanation is written: all of it, or the MCP tool's bounded summary. */
export type ExplainMode = 'full' | 'summary';

/** What is written, and how much of it. */
export interface WriteOptions {
  /** json (default), the posting file, or the worklist as CSV. */
  format?: RemitFormat;
  /** JSON only: the whole answer, or the MCP tool's bounded summary. */
  mode?: ExplainMode;
  /** CSV: begin with the header line (the first file of a batch). */
  header?: boolean;
}

/** The JSON answer's tail in the MCP tool's bounded summary: at most `SUMMARY_ROWS` of each list, `truncated` when cut. */
function summaryTail(e: Explained, tail: ExplanationTail, trace: Trace): ExplanationTail {
  const cut = e.summary.claims > 0 || e.worklist.length > SUMMARY_ROWS || e.findings.length > SUMMARY_ROWS || e.reversals.length > SUMMARY_ROWS;
  trace.warn(`a summary: the transactions without their claims, the first ${SUMMARY_ROWS} worklist items, findings and reversals; the whole answer comes from POST /v1/remittances/explain or \`rcm remit explain\` with the same file`);
  return { ...tail, worklist: e.worklist.slice(0, SUMMARY_ROWS), findings: e.findings.slice(0, SUMMARY_ROWS), reversals: e.reversals.slice(0, SUMMARY_ROWS), truncated: cut, reliability: trace.reliability() };
}

/**
 * Prepares an explanation of a read file for `write` (the reads and the ccn/locality check done,
 * so every caller's mistake is known before the first byte). `redact`: identifiers replaced by
 * tokens stable within the answer.
 */
export async function explanationOf(
  snapshot: SnapshotReader,
  file: X12File,
  asOf: string,
  trace: Trace,
  where: PayeeLocation,
  o: { testKey?: boolean; progress?: Progress; redact?: boolean; batch?: Batch; redactor?: Redactor; name?: string } = {},
) {
  if (o.testKey) trace.warn('test keys and the test host must not carry PHI: send only de-identified or synthetic 835 files with a test key');
  if (o.redact) trace.warn(REDACTED_WARNING);
  const { inputs, linker } = await prepare(snapshot, file, asOf, trace, where, o.progress);
  const explain = async (sink: ClaimSink) => {
    const e = await explainRemittance(file, { ...inputs, batch: o.batch, redact: o.redactor ?? (o.redact ? new Redactor() : null) }, sink);
    linker.finish();
    return e;
  };
  return {
    /** The explanation, each claim handed to `sink` as it is explained (the CLI's text). */
    explainWith: explain,
    /**
     * The explanation through `out`, claim by claim, each part awaited: JSON (`ExplanationWriter`;
     * `summary`: the transactions without their claims, at most `SUMMARY_ROWS` worklist items,
     * findings and reversals, `truncated` saying whether anything was left out), the posting file
     * (`PostingCsvWriter`) or the worklist as CSV.
     */
    async write(out: (text: string) => Promise<void>, w: WriteOptions = {}): Promise<Explained> {
      if (w.format === 'posting-csv') {
        const writer = new PostingCsvWriter(out, o.name ?? null, w.header ?? true);
        const e = await explain(writer);
        await writer.flush();
        return e;
      }
      if (w.format === 'worklist-csv') {
        const e = await explain({ claim: async () => undefined });
        await out(worklistCsv([{ file: o.name ?? null, worklist: e.worklist }], w.header ?? true));
        return e;
      }
      const writer = new ExplanationWriter(out);
      await writer.start(asOf, o.name);
      const e = await explain(w.mode === 'summary' ? { claim: async () => undefined, transaction: (tx, phase) => writer.transaction(tx, phase) } : writer);
      const tail: ExplanationTail = { acknowledgments: e.acknowledgments, findings: e.findings, summary: e.summary, worklist: e.worklist, reversals: e.reversals, reliability: trace.reliability() };
      await writer.end(w.mode === 'summary' ? summaryTail(e, tail, trace) : tail);
      return e;
    },
  };
}
