import { coverageDocumentsIn, type CoverageDocVersion } from '../../datasets/mcd_coverage/queries.js';
import { listingOf } from '../../datasets/mcd_documents/queries.js';
import { readPayerTable } from '../../datasets/payers/queries.js';
import type { PolicyRuleRow } from '../../datasets/payers/schema.js';
import { readKeyChanges, type KeyChange } from '../../warehouse/key_changes.js';
import type { ChangeRecord } from '../../warehouse/manifest.js';
import type { DatasetName, SnapshotReader } from '../../warehouse/snapshot.js';
import type { PolicyChange } from './schemas.js';
import { MEDICARE_FFS } from './service.js';

/** What one document looked like in a release, for the feed: its version (null: curated, unversioned) and page. */
interface Seen {
  version: number | null;
  title: string;
  effective_date: string | null;
  retirement_date: string | null;
  url: string | null;
}

/** One document's keys in a change record: its versions before and after, and whether it was retired in place. */
interface DocKeys {
  kind: string;
  payer_slug: string;
  before: Seen[];
  after: Seen[];
  /** A version whose retirement date was set by this release. */
  retired: Seen | null;
}

/**
 * Turns one document's keys into feed items: a version added is `new` (no version before) or
 * `revised` (from the newest version before to the newest added); a document no longer listed,
 * or whose version got a retirement date, is `retired`.
 */
function itemsOf(c: ChangeRecord, doc_id: string, k: DocKeys, added: Seen[]): PolicyChange[] {
  const base = { payer_slug: k.payer_slug, doc_id, kind: k.kind, dataset: c.dataset, dataset_from_version: c.from_version!, dataset_to_version: c.to_version };
  const newest = (xs: Seen[]) => [...xs].sort((a, b) => (a.version ?? 0) - (b.version ?? 0)).at(-1);
  const out: PolicyChange[] = [];
  const item = (change_type: PolicyChange['change_type'], from: Seen | undefined, to: Seen | undefined, effective: string | null) => {
    const shown = to ?? from!;
    const date = effective ?? c.effective_date ?? c.created_at.slice(0, 10);
    out.push({
      id: `${c.id}:${doc_id}:${change_type}`,
      date,
      ...base,
      change_type,
      from_version: from?.version ?? null,
      to_version: to?.version ?? null,
      effective_date: effective,
      title: shown.title,
      url: shown.url,
    });
  };
  const to = newest(added);
  const from = newest(k.before);
  // A document is never "revised" from a version to the same version (a listing row re-keyed, not a new version).
  if (to && !(from && from.version !== null && from.version === to.version)) item(from ? 'revised' : 'new', from, to, to.effective_date);
  else if (k.before.length && !k.after.length) item('retired', from, undefined, from!.retirement_date);
  if (k.retired) item('retired', k.retired, k.retired, k.retired.retirement_date);
  return out;
}

/** Groups a change record's keys by document, with what each release says about it. */
type Grouper = (snapshot: SnapshotReader, c: ChangeRecord, keys: KeyChange[]) => Promise<Map<string, DocKeys & { added: Seen[] }>>;

const listingSeen = (r: { document_version: number; title: string; effective_date: string | null; retirement_date: string | null; url: string }): Seen => ({
  version: r.document_version,
  title: r.title,
  effective_date: r.effective_date,
  retirement_date: r.retirement_date,
  url: r.url,
});

/** mcd_documents: keys `L36668|45` (display id and version). */
const fromListing: Grouper = async (snapshot, c, keys) => {
  const [before, after] = await Promise.all([listingOf(snapshot, c.from_version!), listingOf(snapshot, c.to_version)]);
  const docs = new Map<string, DocKeys & { added: Seen[] }>();
  for (const k of keys) {
    const [id, v] = k.key.split('|');
    const version = Number(v);
    const was = before.byDisplayId.get(id!) ?? [];
    const now = after.byDisplayId.get(id!) ?? [];
    const d = docs.get(id!) ?? { kind: (now[0] ?? was[0])!.document_type, payer_slug: MEDICARE_FFS, before: was.map(listingSeen), after: now.map(listingSeen), retired: null, added: [] };
    docs.set(id!, d);
    const row = now.find((r) => r.document_version === version);
    if (k.kind === 'added' && row) d.added.push(listingSeen(row));
    if (k.kind === 'changed' && k.columns.includes('retirement_date') && row?.retirement_date) d.retired = listingSeen(row);
  }
  return docs;
};

/** mcd_coverage: keys of the lcd, article and ncd tables (`99001|3`: id and version). */
const fromCoverage: Grouper = async (snapshot, c, keys) => {
  const [before, after] = await Promise.all([coverageDocumentsIn(snapshot, c.from_version!), coverageDocumentsIn(snapshot, c.to_version)]);
  const versionsOf = (m: Map<string, CoverageDocVersion>, docId: string) => [...m.values()].filter((x) => x.doc_id === docId);
  const docs = new Map<string, DocKeys & { added: Seen[] }>();
  for (const k of keys) {
    if (!['lcd', 'article', 'ncd'].includes(k.table)) continue;
    const key = `${k.table}:${k.key}`;
    const row = after.get(key) ?? before.get(key);
    if (!row) continue;
    const d = docs.get(row.doc_id) ?? {
      kind: row.kind,
      payer_slug: MEDICARE_FFS,
      before: versionsOf(before, row.doc_id),
      after: versionsOf(after, row.doc_id),
      retired: null,
      added: [],
    };
    docs.set(row.doc_id, d);
    if (k.kind === 'added') d.added.push(row);
    if (k.kind === 'changed' && k.columns.some((x) => x === 'date_retired' || x === 'ncd_trmntn_dt') && row.retirement_date) d.retired = row;
  }
  return docs;
};

const ruleSeen = (r: PolicyRuleRow): Seen => ({ version: null, title: r.citation.title, effective_date: r.effective_from, retirement_date: null, url: r.pdf_uri ?? r.citation.url });

/** payers: keys of policy_rules (`uhc|2025T0362PP|bariatric_43644`); a curated document carries no version number. */
const fromPayers: Grouper = async (snapshot, c, keys) => {
  const [before, after] = await Promise.all([readPayerTable(snapshot, 'policy_rules', c.from_version!), readPayerTable(snapshot, 'policy_rules', c.to_version)]);
  const rulesOf = (rows: PolicyRuleRow[], slug: string, doc: string) => rows.filter((r) => r.payer_slug === slug && r.doc_id === doc);
  const docs = new Map<string, DocKeys & { added: Seen[] }>();
  for (const k of keys) {
    if (k.table !== 'policy_rules') continue;
    const [slug, doc] = k.key.split('|') as [string, string];
    const id = `${slug}|${doc}`;
    if (!docs.has(id)) {
      const was = rulesOf(before, slug, doc);
      const now = rulesOf(after, slug, doc);
      docs.set(id, { kind: (now[0] ?? was[0])!.kind, payer_slug: slug, before: was.slice(0, 1).map(ruleSeen), after: now.slice(0, 1).map(ruleSeen), retired: null, added: [] });
    }
    const d = docs.get(id)!;
    // Any rule added or changed revises the document (or makes it new); its rules all gone retire it.
    if (k.kind !== 'removed' && d.added.length === 0 && d.after.length) d.added.push(d.after[0]!);
  }
  return new Map([...docs].map(([id, d]) => [id.split('|')[1]!, d]));
};

const GROUPERS: Record<string, Grouper> = { mcd_documents: fromListing, mcd_coverage: fromCoverage, payers: fromPayers };

/**
 * The policy document feed of a snapshot, newest first (date descending, id ascending): every
 * change record of mcd_documents, mcd_coverage and the payers' policy rules that compared two
 * releases, read from the per-key change rows the ingest kept (`keys_file`). A first load keeps
 * none, so the feed is empty until a second version of a dataset is loaded.
 */
export function policyChanges(snapshot: SnapshotReader): Promise<PolicyChange[]> {
  // A release that replaces seed versions compares with a sample, no longer served: it revises or
  // retires nothing (a seed "removes" nothing either way), so it is no feed item.
  const mounted = (c: ChangeRecord) => snapshot.versions(c.dataset as DatasetName).some((v) => v.version === c.from_version);
  const records = snapshot.manifest.changes.filter((c) => GROUPERS[c.dataset] && c.from_version && c.keys_file && !c.replaces_seed && mounted(c));
  return snapshot.memo(
    `policies:changes:${records.map((c) => c.id).join(',')}`,
    async () => {
      const out: PolicyChange[] = [];
      for (const c of records) {
        const keys = await readKeyChanges(snapshot, c);
        if (keys.length === 0) continue;
        const docs = await GROUPERS[c.dataset]!(snapshot, c, keys);
        for (const [docId, d] of docs) out.push(...itemsOf(c, docId, d, d.added));
      }
      return out.sort((a, b) => b.date.localeCompare(a.date) || a.id.localeCompare(b.id));
    },
    { pin: true },
  );
}
