// The dependency rules (npm run lint): apps import packages, packages import packages only and
// packages/analysis none, no app imports another app except apps/cli (the composer), no
// workspace reaches into another's files past its entry, the what-if wing's folders depend one
// way, apps/api stands on its foundation/ under its server/, and no import cycles.
// packages/analysis's no-I/O rule is in eslint.config.js. The layers are drawn in
// docs/architecture.md, which a test keeps equal to these rules.
/** A workspace: apps/NAME, packages/NAME, bench or collectors (group 1 of the match). */
const WORKSPACE = '^((?:apps|packages)/[^/]+|bench|collectors)/';

/**
 * The what-if engine's folders (packages/analysis/src/whatif/...) and the folders each may
 * import: one way, from the estimates up to the split answer. Tests may import anything (they
 * test insides); testing/ (test generators) and the wing's entry are not constrained.
 * docs/architecture.md shows this table; apps/api/test/architecture-docs.test.ts keeps both equal.
 */
const WHATIF_MAY_IMPORT = {
  estimate: [],
  policies: ['estimate'],
  fanout: ['estimate', 'policies'],
  'request/trees': [],
  'request/replay': ['request/trees'],
  'request/loop': ['request/trees'],
  'request/plan': ['request/trees', 'request/replay'],
  'request/answer': [
    'estimate',
    'policies',
    'fanout',
    'request/trees',
    'request/replay',
    'request/loop',
    'request/plan',
  ],
  'request/split': [
    'estimate',
    'policies',
    'request/trees',
    'request/replay',
    'request/loop',
    'request/plan',
    'request/answer',
  ],
};
const WHATIF = 'packages/analysis/src/whatif/';
/**
 * One rule per what-if folder: the folders it may not import. A folder that may import none of
 * request/'s may not import request/ at all (its entry, its arena).
 */
const whatIfLayers = Object.entries(WHATIF_MAY_IMPORT).map(([folder, may]) => {
  const not = Object.keys(WHATIF_MAY_IMPORT).filter((f) => f !== folder && !may.includes(f));
  const inRequest = (f) => f.startsWith('request/');
  const noRequest = !folder.startsWith('request/') && !may.some(inRequest);
  const targets = noRequest ? [...not.filter((f) => !inRequest(f)), 'request'] : not;
  return {
    name: `whatif-${folder.replace('/', '-')}`,
    severity: 'error',
    comment: `whatif/${folder} imports ${may.length ? may.join(', ') : 'no other what-if folder'}.`,
    from: { path: `^${WHATIF}${folder}/`, pathNot: '\\.test\\.tsx?$' },
    to: { path: `^${WHATIF}(${targets.join('|')})/` },
  };
});

const API = 'apps/api/src/';
/**
 * apps/api's layers with rules (docs/architecture.md, "apps/api"): foundation/ (the shared
 * vocabulary) at the bottom, importing none of the other folders; store/ (SQL, one folder per
 * kind of data) on it; cache/ (the cache layer) on the store; server/ (the composition root) at
 * the top, imported by none of them; report/run.ts builds the API in process and the entry
 * re-exports it, so they compose too. Tests may import anything.
 */
const apiLayers = [
  {
    name: 'api-foundation-imports-none',
    severity: 'error',
    comment:
      'apps/api/src/foundation is the shared vocabulary (errors, tokens, ranges, route typing): ' +
      'every folder may import it and it imports none of them.',
    from: { path: `^${API}foundation/` },
    to: { path: `^${API}`, pathNot: `^${API}foundation/` },
  },
  {
    name: 'api-store-on-foundation',
    severity: 'error',
    comment:
      'apps/api/src/store (the SQL, in folders by what they store) imports only foundation/: ' +
      'the cache layer, routes, ingest and the what-if worker stand on it, never the reverse.',
    from: { path: `^${API}store/`, pathNot: '\\.test\\.ts$' },
    to: { path: `^${API}[^/]+/`, pathNot: `^${API}(store|foundation|server)/` },
  },
  {
    name: 'api-cache-on-store',
    severity: 'error',
    comment:
      'apps/api/src/cache is the cache layer (answers, store figures, whole-request trees kept ' +
      'in memory; cache/README.md lists every cache): it imports only store/ and foundation/.',
    from: { path: `^${API}cache/`, pathNot: '\\.test\\.ts$' },
    to: { path: `^${API}[^/]+/`, pathNot: `^${API}(cache|store|foundation|server)/` },
  },
  {
    name: 'api-server-is-the-root',
    severity: 'error',
    comment:
      'apps/api/src/server composes the API: no other folder imports it (what they share goes ' +
      'in foundation/; what routes get is routes/context.ts).',
    from: {
      path: `^${API}`,
      pathNot: [`^${API}server/`, `^${API}index\\.ts$`, `^${API}report/run\\.ts$`, '\\.test\\.ts$'],
    },
    to: { path: `^${API}server/` },
  },
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: split the shared part into its own module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'packages-not-apps',
      severity: 'error',
      comment:
        'Packages import packages only (never apps, bench or collectors): apps compose packages.',
      from: { path: '^packages/' },
      to: { path: '^(apps|bench|collectors)/' },
    },
    {
      name: 'analysis-is-the-foundation',
      severity: 'error',
      comment:
        'packages/analysis imports no other workspace: the API, the reports and the browser ' +
        'worker all run it.',
      from: { path: '^packages/analysis/' },
      to: { path: WORKSPACE, pathNot: '^packages/analysis/' },
    },
    {
      name: 'bench-is-a-tool',
      severity: 'error',
      comment: 'bench measures the workspaces from outside: nothing imports it.',
      from: { path: WORKSPACE, pathNot: '^bench/' },
      to: { path: '^bench/' },
    },
    {
      name: 'collectors-not-apps',
      severity: 'error',
      comment: "The collectors run beside users' services: they import packages only.",
      from: { path: '^collectors/' },
      to: { path: '^(apps|bench)/' },
    },
    {
      name: 'apps-not-apps',
      severity: 'error',
      comment:
        "Only apps/cli composes apps; other apps import packages only. The dashboard's browser " +
        'tests (apps/web/e2e) run the real server, through its entry.',
      from: { path: '^apps/([^/]+)/', pathNot: ['^apps/cli/', '^apps/web/e2e/'] },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'entry-only',
      severity: 'error',
      comment: 'Import another workspace through its package entry, never its files.',
      from: { path: WORKSPACE },
      to: {
        path: WORKSPACE,
        pathNot: [
          '^$1/',
          '^((?:apps|packages)/[^/]+|collectors)/src/index\\.tsx?$',
          '^packages/analysis/src/testing\\.ts$',
          '^packages/charts/src/styles\\.css$',
        ],
      },
    },
    {
      name: 'analysis-testing-for-tests',
      severity: 'error',
      comment:
        "@tailscope/analysis/testing (synthesizers, the what-if's building blocks) is for the " +
        'benchmarks and the tests: what the apps run comes through the package entry.',
      from: {
        path: '^(apps|collectors)/[^/]+/src/',
        pathNot: ['\\.test\\.tsx?$', '/src/testing/'],
      },
      to: { path: '^packages/analysis/src/testing\\.ts$' },
    },
    ...whatIfLayers,
    ...apiLayers,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|data|artifacts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
