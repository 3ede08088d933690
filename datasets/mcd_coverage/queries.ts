import { viewName } from '../../warehouse/manifest.js';
import type { SnapshotReader } from '../../warehouse/snapshot.js';
import { selectVersion } from '../_shared/versions.js';
import type { ArticleRow, ArticleHcpcRow, ArticleIcd10Row, LcdArticleRow, LcdRow } from './dataset.js';

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
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
};

/** The coverage release in force (latest loaded), indexed once per snapshot; null when mcd_coverage is not loaded. */
export async function coverageIndex(snapshot: SnapshotReader): Promise<CoverageIndex | null> {
  const pick = selectVersion('mcd_coverage', snapshot.versions('mcd_coverage'), { rule: 'effective' });
  if (!pick) return null;
  const version = pick.version.version;
  return snapshot.memo(
    `mcd_coverage:index:${version}`,
    async () => {
      const read = <R>(t: string) => snapshot.all<R>(`SELECT * EXCLUDE (version) FROM "${viewName('mcd_coverage', t)}" WHERE version = $1`, [version]);
      const [lcds, articles, links, codes, icd] = await Promise.all([
        read<LcdRow>('lcd'),
        read<ArticleRow>('article'),
        read<LcdArticleRow>('lcd_related_documents'),
        read<ArticleHcpcRow>('article_x_hcpc_code'),
        read<ArticleIcd10Row>('article_x_icd10_covered'),
      ]);
      const latest = new Map<number, ArticleRow>();
      for (const a of articles) if ((latest.get(a.article_id)?.article_version ?? -1) < a.article_version) latest.set(a.article_id, a);
      const current = (id: number, v: number) => latest.get(id)?.article_version === v;
      const idx: CoverageIndex = { version, articles: latest, articlesByCode: new Map(), covered: new Map(), lcdsOfArticle: new Map() };
      for (const c of codes) if (current(c.article_id, c.article_version) && !idx.articlesByCode.get(c.hcpc_code_id)?.includes(c.article_id)) push(idx.articlesByCode, c.hcpc_code_id, c.article_id);
      for (const d of icd) if (current(d.article_id, d.article_version)) push(idx.covered, d.article_id, d);
      const lcdById = new Map<number, LcdRow>();
      for (const l of lcds) if ((lcdById.get(l.lcd_id)?.lcd_version ?? -1) < l.lcd_version) lcdById.set(l.lcd_id, l);
      for (const k of links) {
        const l = lcdById.get(k.lcd_id);
        if (l && l.lcd_version === k.lcd_version && current(k.r_article_id, k.r_article_version)) push(idx.lcdsOfArticle, k.r_article_id, l);
      }
      return idx;
    },
    { pin: true },
  );
}

/** Ids the seeds use for illustrative coverage rows (L99001-L99999, A99001-A99999): never real policies. */
export const ILLUSTRATIVE_MCD_ID = /^[LA]99\d{3}$/;

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
