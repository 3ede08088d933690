import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import { mcdCoverage, type ArticleRow, type ArticleHcpcRow, type ArticleIcd10Row, type LcdArticleRow, type LcdRow, type NcdRow } from './dataset.js';

/** One loaded coverage release, indexed for the medical-necessity agent (all in memory: the MCD is a few hundred thousand code rows). */
export interface CoverageIndex {
  version: string;
  /** Latest version of each article, by id. */
  articles: Map<number, ArticleRow>;
  /** HCPCS code -> ids of the articles listing it. */
  articlesByCode: Map<string, number[]>;
  /** Article id -> covered ICD-10-CM codes (as printed, with the dot) with their group. */
  covered: Map<number, ArticleIcd10Row[]>;
  /** Article id -> the LCDs that reference it. */
  lcdsOfArticle: Map<number, LcdRow[]>;
  /** Latest version of each LCD, by id. */
  lcds: Map<number, LcdRow>;
  /** LCD id -> ids of the current articles it references. */
  articlesOfLcd: Map<number, number[]>;
  /** Article id -> the HCPCS codes it lists. */
  codesOfArticle: Map<number, string[]>;
  /** Latest version of each NCD. */
  ncds: NcdRow[];
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
};

/** The coverage release in force (latest loaded), indexed once per snapshot; null when mcd_coverage is not loaded. */
export async function coverageIndex(snapshot: SnapshotReader): Promise<CoverageIndex | null> {
  const pick = selectVersion(mcdCoverage.id, snapshot.versions(mcdCoverage.id), { rule: 'effective' });
  if (!pick) return null;
  const version = pick.version.version;
  return snapshot.memo(
    `${mcdCoverage.id}:index:${version}`,
    async () => {
      const read = <R>(t: string) => snapshot.all<R>(`SELECT * EXCLUDE (version) FROM "${viewName(mcdCoverage.id, t)}" WHERE version = $1`, [version]);
      const [lcds, articles, links, codes, icd, ncds] = await Promise.all([
        read<LcdRow>('lcd'),
        read<ArticleRow>('article'),
        read<LcdArticleRow>('lcd_related_documents'),
        read<ArticleHcpcRow>('article_x_hcpc_code'),
        read<ArticleIcd10Row>('article_x_icd10_covered'),
        read<NcdRow>('ncd'),
      ]);
      const latest = new Map<number, ArticleRow>();
      for (const a of articles) if ((latest.get(a.article_id)?.article_version ?? -1) < a.article_version) latest.set(a.article_id, a);
      const current = (id: number, v: number) => latest.get(id)?.article_version === v;
      const lcdById = new Map<number, LcdRow>();
      for (const l of lcds) if ((lcdById.get(l.lcd_id)?.lcd_version ?? -1) < l.lcd_version) lcdById.set(l.lcd_id, l);
      const ncdById = new Map<string, NcdRow>();
      for (const n of ncds) if ((ncdById.get(n.ncd_id)?.ncd_vrsn_num ?? -1) < n.ncd_vrsn_num) ncdById.set(n.ncd_id, n);
      const idx: CoverageIndex = {
        version,
        articles: latest,
        articlesByCode: new Map(),
        covered: new Map(),
        lcdsOfArticle: new Map(),
        lcds: lcdById,
        articlesOfLcd: new Map(),
        codesOfArticle: new Map(),
        ncds: [...ncdById.values()],
      };
      for (const c of codes) {
        if (!current(c.article_id, c.article_version) || idx.articlesByCode.get(c.hcpc_code_id)?.includes(c.article_id)) continue;
        push(idx.articlesByCode, c.hcpc_code_id, c.article_id);
        push(idx.codesOfArticle, c.article_id, c.hcpc_code_id);
      }
      for (const d of icd) if (current(d.article_id, d.article_version)) push(idx.covered, d.article_id, d);
      for (const k of links) {
        const l = lcdById.get(k.lcd_id);
        if (l && l.lcd_version === k.lcd_version && current(k.r_article_id, k.r_article_version)) {
          push(idx.lcdsOfArticle, k.r_article_id, l);
          push(idx.articlesOfLcd, l.lcd_id, k.r_article_id);
        }
      }
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
