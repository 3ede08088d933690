import type { z } from 'zod';
import { fromStored, type TableSpec } from '../_shared/table.js';
import { selectVersion } from '../_shared/versions.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { viewName } from '../../warehouse/manifest.js';
import { payers as payersDataset } from './dataset.js';
import {
  PAYER_TABLES,
  type AppealLevelRow,
  type DenialPatternRow,
  type FilingRuleRow,
  type PayerRow,
  type PayerTableName,
  type PolicyRuleRow,
  type PriorAuthRuleRow,
  type ServiceCategoryRow,
} from './schema.js';

/** All curated payer knowledge of the version in force, indexed once per snapshot (a few thousand rows). */
export interface PayerKnowledge {
  version: string;
  payers: Map<string, PayerRow>;
  /** Normalised alias (and name) -> slugs carrying it; an alias of several payers never resolves alone. */
  aliases: Map<string, string[]>;
  filing: Map<string, FilingRuleRow[]>;
  appeals: Map<string, AppealLevelRow[]>;
  denials: Map<string, DenialPatternRow[]>;
  priorAuth: Map<string, PriorAuthRuleRow[]>;
  policies: Map<string, PolicyRuleRow[]>;
  serviceCategories: ServiceCategoryRow[];
}

const EMPTY: Omit<PayerKnowledge, 'version'> = {
  payers: new Map(),
  aliases: new Map(),
  filing: new Map(),
  appeals: new Map(),
  denials: new Map(),
  priorAuth: new Map(),
  policies: new Map(),
  serviceCategories: [],
};

const groupBySlug = <R extends { payer_slug: string }>(rows: R[]): Map<string, R[]> => {
  const m = new Map<string, R[]>();
  for (const r of rows) {
    const l = m.get(r.payer_slug);
    if (l) l.push(r);
    else m.set(r.payer_slug, [r]);
  }
  return m;
};

/** Lower case, separators as one space: how aliases are compared. */
export const aliasKey = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** The rows of one table of a loaded payers release (e.g. a release's policy rules, for a change feed). */
export async function readPayerTable<N extends PayerTableName>(snapshot: SnapshotReader, name: N, version: string): Promise<z.infer<(typeof PAYER_TABLES)[N]['row']>[]> {
  const t: TableSpec = PAYER_TABLES[name];
  const rows = await snapshot.all<Record<string, unknown>>(`SELECT * EXCLUDE (version) FROM "${viewName(payersDataset.id, name)}" WHERE version = $1`, [version]);
  return rows.map((r) => fromStored(t, r)) as never;
}

/** The loaded payer knowledge (empty, with `version` '', when the dataset is not loaded). */
export function payerKnowledge(snapshot: SnapshotReader): Promise<PayerKnowledge> {
  const pick = selectVersion(payersDataset.id, snapshot.versions(payersDataset.id), { rule: 'effective' });
  if (!pick) return Promise.resolve({ version: '', ...EMPTY });
  const version = pick.version.version;
  return snapshot.memo(
    `${payersDataset.id}:knowledge:${version}`,
    async () => {
      const read = (name: PayerTableName) => readPayerTable(snapshot, name, version) as never;
      const payers: PayerRow[] = await read('payers');
      const aliases = new Map<string, string[]>();
      const add = (k: string, slug: string) => {
        const key = aliasKey(k);
        const l = aliases.get(key) ?? [];
        if (!l.includes(slug)) l.push(slug);
        aliases.set(key, l);
      };
      for (const p of payers) {
        add(p.name, p.slug);
        for (const a of p.aliases) add(a, p.slug);
      }
      const order = <R extends { appeal_level?: number }>(m: Map<string, R[]>) => {
        for (const l of m.values()) l.sort((a, b) => (a.appeal_level ?? 0) - (b.appeal_level ?? 0));
        return m;
      };
      return {
        version,
        payers: new Map(payers.map((p) => [p.slug, p])),
        aliases,
        filing: groupBySlug<FilingRuleRow>(await read('filing_rules')),
        appeals: order(groupBySlug<AppealLevelRow>(await read('appeal_levels'))),
        denials: groupBySlug<DenialPatternRow>(await read('denial_patterns')),
        priorAuth: groupBySlug<PriorAuthRuleRow>(await read('prior_auth_rules')),
        policies: groupBySlug<PolicyRuleRow>(await read('policy_rules')),
        serviceCategories: await read('service_categories'),
      };
    },
    { pin: true },
  );
}

/** True when `code` is within `start`..`end` (codes of one length compare as strings: 0001U, 99213, J0585). */
export function codeInRange(code: string, start: string, end: string): boolean {
  return code.length === start.length && code.length === end.length && code >= start && code <= end;
}

/** The service categories a code falls in. */
export function categoriesOf(k: PayerKnowledge, code: string): ServiceCategoryRow[] {
  return k.serviceCategories.filter((c) => codeInRange(code, c.code_start, c.code_end));
}
