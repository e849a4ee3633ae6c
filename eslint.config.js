// typescript-eslint strict type-checked everywhere, zero warnings (npm run lint). The dependency
// direction and import cycles are checked by dependency-cruiser (.dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'artifacts/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The analysis package runs in the browser's worker too: no I/O, no clock, no Node modules.
    files: ['packages/analysis/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['node:*', 'fs', 'path', 'os', 'crypto', 'http'] },
      ],
      'no-restricted-globals': ['error', 'process', 'fetch', 'performance'],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'analysis takes time as an argument' },
        { object: 'Math', property: 'random', message: 'use the seeded generator passed in' },
      ],
    },
  },
  {
    // The what-if engine is typed-array loops over offsets and CSR lists whose indexes are in
    // bounds by construction. There `a[i]!` states that; `a[i] ?? 0` would hide an indexing bug
    // as a zero, and a checked accessor would cost the replay's hot loops time (the benchmark
    // checks it). One override for the wing instead of a disable line atop each of its files.
    // The capacity model (issue 29) is the same kind of code: queue simulations and re-timing
    // over the what-if's request trees.
    files: [
      'packages/analysis/src/whatif/**/*.ts',
      'packages/analysis/test/whatif/**/*.ts',
      'packages/analysis/src/capacity/**/*.ts',
    ],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['apps/web/src/**/*.{ts,tsx}', 'packages/charts/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}', 'packages/charts/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat.recommended,
  },
  {
    // Plain JavaScript (bins, scripts, this file): no TypeScript project, so no typed rules.
    files: ['**/*.{js,mjs,cjs}'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
);
