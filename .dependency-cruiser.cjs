/**
 * The layering check (`npm run lint:layers`, part of `npm test`). Floors, top to bottom:
 * bin -> cli -> {server, ingest} -> datasets -> warehouse -> lib. An import may only point down;
 * lib/ (owned infrastructure and the billing vocabulary) imports nothing of the application.
 * Inside server/, the route declarations (server/routes/) sit above the areas (the domain):
 * routes may import any area, an area never imports server/routes/, and no two areas import
 * each other round a loop. testing/ (what tests and bench/ share) is below nothing: only tests and
 * bench/ import it. Parsed with swc (the TypeScript 7 package has no compiler API).
 */
const floor = (name, below) => ({
  name: `${name}-imports-upward`,
  comment: `${name}/ is below ${below.join(', ')}: it may not import them (the floors are bin, cli, server|ingest, datasets, warehouse, lib)`,
  severity: 'error',
  from: { path: `^${name}/` },
  to: { path: `^(${below.join('|')})/` },
});

module.exports = {
  forbidden: [
    floor('lib', ['warehouse', 'datasets', 'ingest', 'server', 'cli', 'bin']),
    floor('warehouse', ['datasets', 'ingest', 'server', 'cli', 'bin']),
    floor('datasets', ['ingest', 'server', 'cli', 'bin']),
    floor('ingest', ['server', 'cli', 'bin']),
    floor('server', ['ingest', 'cli', 'bin']),
    floor('cli', ['bin']),
    {
      name: 'code-imports-testing',
      comment: 'testing/ holds what tests and bench/ share (servers, seeded snapshots, fixtures); the application never imports it',
      severity: 'error',
      from: { path: '^(bin|cli|server|ingest|datasets|warehouse|lib)/' },
      to: { path: '^testing/' },
    },
    {
      name: 'area-imports-routes',
      comment: 'server/routes/ holds the route declarations, above the areas: an area never imports it',
      severity: 'error',
      from: { path: '^server/', pathNot: '^server/(routes/|server\\.ts$)' },
      to: { path: '^server/routes/' },
    },
    {
      name: 'area-cycle',
      comment: 'two server areas import each other round a loop: move the shared piece down to a lower area',
      severity: 'error',
      scope: 'folder',
      from: { path: '^server/(?!routes$)[^/]+$' },
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|\\.test\\.ts$|^test/|^bench/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.json'] },
  },
};
