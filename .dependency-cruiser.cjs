// The dependency rules (npm run lint): apps import packages, packages never import apps, no app
// imports another app except apps/cli (the composer), no workspace reaches into another's files
// past its entry, and no import cycles. packages/analysis's no-I/O rule is in eslint.config.js.
/** A workspace: apps/NAME, packages/NAME, bench or collectors (group 1 of the match). */
const WORKSPACE = '^((?:apps|packages)/[^/]+|bench|collectors)/';

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
      comment: 'Packages never import apps: apps compose packages.',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
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
          '^packages/charts/src/styles\\.css$',
        ],
      },
    },
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
