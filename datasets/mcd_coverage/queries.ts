import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { fromStored, type TableSpec } from '../_shared/table.js';
import { selectVersion } from '../_shared/versions.js';
import {
  MCD_TABLES,
  mcdCoverage,
  type ArticleContractorRow,
  type ArticleHcpcRow,
  type ArticleIcd10Row,
  type ArticleLcdRow,
  type ArticleNcdRow,
  type ArticleRow,
  type ContractorJurisdictionRow,
  type ContractorRow,
  type LcdArticleRow,
  type LcdContractorRow,
  type LcdHcpcRow,
  type LcdNcdRow,
  type LcdRow,
  type McdTable,
  type NcdRow,
  type StateRow,
} from './dataset.js';

/** A contractor that issued an LCD or article, as the download's contractor tables describe it. */
export interface McdContractor {
  contractor_id: number;
  contractor_type_id: number;
  contractor_version: number;
  /** Null when contractor.csv is not loaded. */
  name: string | null;
  number: string | null;
  /** `A`-`D` for a DME MAC contract, else null. */
  dme_region: string | null;
  /** The states the contract covers (contractor_jurisdiction.csv with state_lookup.csv); null when those are not loaded or name none. */
  states: string[] | null;
}

/** One loaded coverage release, indexed for the medical-necessity agent and the policy index (all in memory: the MCD is a few hundred thousand code rows). */
export interface CoverageIndex {
  version: string;
  /** Latest version of each article, by id. */
  articles: Map<number, ArticleRow>;
  /** HCPCS code -> ids of the articles listing it. */
  articlesByCode: Map<string, number[]>;
  /** Article id -> covered ICD-10-CM codes (as printed, with the dot) with their group. */
  covered: Map<number, ArticleIcd10Row[]>;
  /** Article id -> the LCDs that reference it (lcd_related_documents) or it references (article_related_documents). */
  lcdsOfArticle: Map<number, LcdRow[]>;
  /** Latest version of each LCD, by id. */
  lcds: Map<number, LcdRow>;
  /** LCD id -> ids of the current articles it is linked with. */
  articlesOfLcd: Map<number, number[]>;
  /** Article id -> the HCPCS codes it lists. */
  codesOfArticle: Map<number, string[]>;
  /** HCPCS code -> ids of the LCDs listing it themselves (lcd_x_hcpc_code). */
  lcdsByCode: Map<string, number[]>;
  /** LCD id -> the HCPCS codes it lists itself. */
  codesOfLcd: Map<number, string[]>;
  /** Latest version of each NCD. */
  ncds: NcdRow[];
  /** NCD id -> its latest version. */
  ncdById: Map<string, NcdRow>;
  /** LCD id / article id -> the ids of the NCDs it names as related. */
  ncdsOfLcd: Map<number, string[]>;
  ncdsOfArticle: Map<number, string[]>;
  /** LCD id / article id -> its contractors (lcd_x_contractor, article_x_contractor); absent when none is loaded. */
  contractorsOfLcd: Map<number, McdContractor[]>;
  contractorsOfArticle: Map<number, McdContractor[]>;
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
  const l = m.get(k);
  if (!l) m.set(k, [v]);
  else if (!l.includes(v)) l.push(v);
};

/** The coverage release in force (latest loaded), indexed once per snapshot; null when mcd_coverage is not loaded. */
export async function coverageIndex(snapshot: SnapshotReader): Promise<CoverageIndex | null> {
  const pick = selectVersion(mcdCoverage.id, snapshot.versions(mcdCoverage.id), { rule: 'effective' });
  if (!pick) return null;
  const v = pick.version;
  const version = v.version;
  return snapshot.memo(
    `${mcdCoverage.id}:index:${version}`,
    async () => {
      // A version loaded before a table existed has no view part for it: read only the tables it holds.
      const holds = (t: McdTable) => !v.tables || t in v.tables;
      const read = async <R>(t: McdTable): Promise<R[]> =>
        holds(t) ? (await snapshot.all<Record<string, unknown>>(`SELECT * EXCLUDE (version) FROM "${viewName(mcdCoverage.id, t)}" WHERE version = $1`, [version])).map((r) => fromStored(MCD_TABLES[t] as TableSpec, r) as R) : [];
      const [lcds, articles, lcdLinks, articleLinks, lcdNcd, articleNcd, codes, lcdCodes, icd, lcdCon, articleCon, contractors, jurisdictions, states, ncds] = await Promise.all([
        read<LcdRow>('lcd'),
        read<ArticleRow>('article'),
        read<LcdArticleRow>('lcd_related_documents'),
        read<ArticleLcdRow>('article_related_documents'),
        read<LcdNcdRow>('lcd_related_ncd_documents'),
        read<ArticleNcdRow>('article_related_ncd_documents'),
        read<ArticleHcpcRow>('article_x_hcpc_code'),
        read<LcdHcpcRow>('lcd_x_hcpc_code'),
        read<ArticleIcd10Row & { icd10_code_group?: number }>('article_x_icd10_covered'),
        read<LcdContractorRow>('lcd_x_contractor'),
        read<ArticleContractorRow>('article_x_contractor'),
        read<ContractorRow>('contractor'),
        read<ContractorJurisdictionRow>('contractor_jurisdiction'),
        read<StateRow>('state_lookup'),
        read<NcdRow>('ncd'),
      ]);
      const latest = new Map<number, ArticleRow>();
      for (const a of articles) if ((latest.get(a.article_id)?.article_version ?? -1) < a.article_version) latest.set(a.article_id, a);
      const current = (id: number, ver: number) => latest.get(id)?.article_version === ver;
      const lcdById = new Map<number, LcdRow>();
      for (const l of lcds) if ((lcdById.get(l.lcd_id)?.lcd_version ?? -1) < l.lcd_version) lcdById.set(l.lcd_id, l);
      const currentLcd = (id: number, ver: number) => lcdById.get(id)?.lcd_version === ver;
      const ncdById = new Map<string, NcdRow>();
      for (const n of ncds) if ((ncdById.get(n.ncd_id)?.ncd_vrsn_num ?? -1) < n.ncd_vrsn_num) ncdById.set(n.ncd_id, { ...n, codes_named: n.codes_named ?? [] });
      const idx: CoverageIndex = {
        version,
        articles: latest,
        articlesByCode: new Map(),
        covered: new Map(),
        lcdsOfArticle: new Map(),
        lcds: lcdById,
        articlesOfLcd: new Map(),
        codesOfArticle: new Map(),
        lcdsByCode: new Map(),
        codesOfLcd: new Map(),
        ncds: [...ncdById.values()],
        ncdById,
        ncdsOfLcd: new Map(),
        ncdsOfArticle: new Map(),
        contractorsOfLcd: new Map(),
        contractorsOfArticle: new Map(),
      };
      for (const c of codes) {
        if (!current(c.article_id, c.article_version)) continue;
        push(idx.articlesByCode, c.hcpc_code_id, c.article_id);
        push(idx.codesOfArticle, c.article_id, c.hcpc_code_id);
      }
      for (const c of lcdCodes) {
        if (!currentLcd(c.lcd_id, c.lcd_version)) continue;
        push(idx.lcdsByCode, c.hcpc_code_id, c.lcd_id);
        push(idx.codesOfLcd, c.lcd_id, c.hcpc_code_id);
      }
      // A version loaded before the download's column name was adopted holds icd10_code_group.
      for (const d of icd) if (current(d.article_id, d.article_version)) push(idx.covered, d.article_id, { ...d, icd10_covered_group: d.icd10_covered_group ?? d.icd10_code_group! });
      const link = (lcdId: number, articleId: number) => {
        const l = lcdById.get(lcdId)!;
        if (!idx.lcdsOfArticle.get(articleId)?.includes(l)) push(idx.lcdsOfArticle, articleId, l);
        push(idx.articlesOfLcd, lcdId, articleId);
      };
      for (const k of lcdLinks) if (currentLcd(k.lcd_id, k.lcd_version) && current(k.r_article_id, k.r_article_version)) link(k.lcd_id, k.r_article_id);
      for (const k of articleLinks) if (current(k.article_id, k.article_version) && currentLcd(k.r_lcd_id, k.r_lcd_version)) link(k.r_lcd_id, k.article_id);
      for (const k of lcdNcd) if (currentLcd(k.lcd_id, k.lcd_version)) push(idx.ncdsOfLcd, k.lcd_id, k.r_ncd_id);
      for (const k of articleNcd) if (current(k.article_id, k.article_version)) push(idx.ncdsOfArticle, k.article_id, k.r_ncd_id);

      // Contractors: name and contract from contractor.csv, states from contractor_jurisdiction.csv
      // (rows whose term date is before the release are past contracts).
      const ckey = (c: { contractor_id: number; contractor_type_id: number; contractor_version: number }) => `${c.contractor_id}|${c.contractor_type_id}|${c.contractor_version}`;
      const byKey = new Map(contractors.map((c) => [ckey(c), c]));
      const abbrev = new Map(states.map((s) => [s.state_id, s.state_abbrev]));
      const statesOf = new Map<string, string[]>();
      const asOf = v.effective_date ?? '';
      for (const j of jurisdictions) {
        const st = abbrev.get(j.state_id);
        if (!st || (j.term_date && asOf && j.term_date < asOf)) continue;
        push(statesOf, ckey(j), st);
      }
      const contractorOf = (k: { contractor_id: number; contractor_type_id: number; contractor_version: number }): McdContractor => {
        const c = byKey.get(ckey(k));
        const rgn = c?.dmerc_rgn?.trim().toUpperCase() ?? '';
        return {
          contractor_id: k.contractor_id,
          contractor_type_id: k.contractor_type_id,
          contractor_version: k.contractor_version,
          name: c?.contractor_bus_name ?? null,
          number: c?.contractor_number ?? null,
          dme_region: /^[A-D]$/.test(rgn) ? rgn : null,
          states: statesOf.get(ckey(k)) ?? null,
        };
      };
      for (const r of lcdCon) if (currentLcd(r.lcd_id, r.lcd_version)) push(idx.contractorsOfLcd, r.lcd_id, contractorOf(r));
      for (const r of articleCon) if (current(r.article_id, r.article_version)) push(idx.contractorsOfArticle, r.article_id, contractorOf(r));
      return idx;
    },
    { pin: true },
  );
}

/** Ids the seeds use for illustrative coverage rows (L99001-L99999, A99001-A99999): never real policies. */
export const ILLUSTRATIVE_MCD_ID = /^[LA]99\d{3}$/;

/** The seeds' illustrative NCD ids (99001-99999; real NCD ids are a few hundred at most). */
export const ILLUSTRATIVE_NCD_ID = /^99\d{3}$/;

/** A billing article that lists a code, with the LCDs that reference it. */
export interface CodeArticle {
  article: ArticleRow;
  lcds: LcdRow[];
  covered: ArticleIcd10Row[];
}

/** The billing articles (not retired before `date`) that list `code`, each with its LCDs and covered diagnoses. */
export function findArticlesForCode(idx: CoverageIndex, code: string, date: string): CodeArticle[] {
  return (idx.articlesByCode.get(code) ?? [])
    .map((id) => idx.articles.get(id)!)
    .filter((a) => !(a.date_retired && a.date_retired < date))
    .map((article) => ({ article, lcds: idx.lcdsOfArticle.get(article.article_id) ?? [], covered: idx.covered.get(article.article_id) ?? [] }));
}

/** The MCD's display id of an NCD: its manual section (`NCD 220.6`). */
export const ncdDisplayId = (n: Pick<NcdRow, 'ncd_mnl_sect'>): string => `NCD ${n.ncd_mnl_sect}`;

/** The page of a document version in the Medicare Coverage Database (the listing's URL pattern). */
export function mcdUrl(kind: 'lcd' | 'article' | 'ncd', id: number | string, version: number): string {
  const base = 'https://www.cms.gov/medicare-coverage-database/view';
  if (kind === 'lcd') return `${base}/lcd.aspx?lcdid=${id}&ver=${version}`;
  if (kind === 'article') return `${base}/article.aspx?articleid=${id}&ver=${version}`;
  return `${base}/ncd.aspx?NCDId=${id}&ncdver=${version}`;
}

/** One version of an LCD, article or NCD in a coverage release, named by its table key (`lcd:99001|3`). */
export interface CoverageDocVersion {
  key: string;
  doc_id: string;
  kind: 'lcd' | 'article' | 'ncd';
  version: number;
  title: string;
  effective_date: string | null;
  retirement_date: string | null;
  url: string;
}

/** Every LCD, article and NCD version of one loaded coverage release, by `table:key` (what a change feed compares). */
export function coverageDocumentsIn(snapshot: SnapshotReader, version: string): Promise<Map<string, CoverageDocVersion>> {
  return snapshot.memo(
    `${mcdCoverage.id}:documents:${version}`,
    async () => {
      const read = <R>(t: string) => snapshot.all<R>(`SELECT * EXCLUDE (version) FROM "${viewName(mcdCoverage.id, t)}" WHERE version = $1`, [version]);
      const [lcds, articles, ncds] = await Promise.all([read<LcdRow>('lcd'), read<ArticleRow>('article'), read<NcdRow>('ncd')]);
      const out = new Map<string, CoverageDocVersion>();
      const add = (d: CoverageDocVersion) => out.set(d.key, d);
      for (const l of lcds) {
        add({ key: `lcd:${l.lcd_id}|${l.lcd_version}`, doc_id: l.display_id, kind: 'lcd', version: l.lcd_version, title: l.title, effective_date: l.rev_eff_date ?? l.orig_det_eff_date, retirement_date: l.date_retired, url: mcdUrl('lcd', l.lcd_id, l.lcd_version) });
      }
      for (const a of articles) {
        add({ key: `article:${a.article_id}|${a.article_version}`, doc_id: a.display_id, kind: 'article', version: a.article_version, title: a.title, effective_date: a.article_eff_date, retirement_date: a.date_retired, url: mcdUrl('article', a.article_id, a.article_version) });
      }
      for (const n of ncds) {
        add({ key: `ncd:${n.ncd_id}|${n.ncd_vrsn_num}`, doc_id: ncdDisplayId(n), kind: 'ncd', version: n.ncd_vrsn_num, title: n.ncd_mnl_sect_title, effective_date: n.ncd_efctv_dt, retirement_date: n.ncd_trmntn_dt, url: mcdUrl('ncd', n.ncd_id, n.ncd_vrsn_num) });
      }
      return out;
    },
    { pin: true },
  );
}
