import { IngestError } from '../_shared/issue.js';
import { sampleFile, type FileSample, type SourceFile } from '../_shared/source.js';
import { defineMultiTableDataset, type ParseContext, type ParsedItem, type VersionInfo } from '../types.js';
import { mergeSources } from './merge.js';
import { isOpenFdaSample, lastUpdatedOf, parseOpenFdaJson } from './openfda_json.js';
import { NDC_TABLES, type IngredientRow, type PackageRow, type ProductRow } from './schema.js';
import { parseTextFile, textKindOfSample } from './text_files.js';

type NdcRow = ProductRow | PackageRow | IngredientRow;

/**
 * FDA National Drug Code Directory: products, packages and active ingredients, from FDA's text
 * files (finished `product.txt`/`package.txt` of ndctext.zip, the unfinished and excluded
 * variants) and from openFDA's `drug-ndc` JSON export, merged by product NDC when one ingest
 * reads both (see merge.ts). The version is the export's `meta.last_updated`; the text files
 * carry no date, so a text-only ingest takes `--version` (the download date).
 */
export const fdaNdc = defineMultiTableDataset({
  id: 'fda_ndc',
  title: 'FDA NDC Directory: drug products, packages and active ingredients, with openFDA annotations (RxCUI, UNII)',
  publisher: 'U.S. FDA National Drug Code Directory; openFDA drug-ndc',
  formats: [
    'NDC Directory text files (tab-delimited, CP1252): product.txt + package.txt (ndctext.zip), unfinished_product.txt + unfinished_package.txt, the excluded variants',
    'openFDA drug-ndc JSON export (drug-ndc-0001-of-0001.json.zip or the JSON itself)',
  ],
  tables: [NDC_TABLES.product, NDC_TABLES.package, NDC_TABLES.ingredient],
  detect: (s) => textKindOfSample(s) !== undefined || isOpenFdaSample(s),
  version(samples: FileSample[]): VersionInfo | undefined {
    const dates = samples.map(lastUpdatedOf).filter((d): d is string => d !== undefined).sort();
    const latest = dates.at(-1);
    return latest ? { label: latest, effective_date: latest } : undefined;
  },
  checkFiles(files: SourceFile[], samples: FileSample[]): void {
    const kinds = samples.map(textKindOfSample);
    const pkg = kinds.indexOf('package');
    if (pkg >= 0 && !kinds.includes('product')) {
      throw new IngestError('a package file needs its product file in the same ingest (package rows name their product by PRODUCTID)', files[pkg]!.name, 1);
    }
  },
  parse: (file, ctx) => parseByContent(file, ctx),
  finalize: (run) => mergeSources(run),
});

/** A JSON export starts with `{`; a text file with its header line. */
async function* parseByContent(file: SourceFile, ctx: ParseContext): AsyncIterable<ParsedItem<NdcRow>> {
  const head = await sampleFile(file, 1024);
  if (head.text.trimStart().startsWith('{')) yield* parseOpenFdaJson(file, ctx);
  else yield* parseTextFile(file);
}
