// The project's one ESLint configuration, in ESLint 10's flat form. `npm run lint` names it with
// --config; eslint.config.js loads it, so plain `npx eslint` and editors find it too.
const js = require('@eslint/js');
const globals = require('globals');
const { defineConfig } = require('eslint/config');
const tseslint = require('typescript-eslint');
const prettier = require('eslint-plugin-prettier/recommended');

const TESTS = { group: ['**/test/**'], message: 'src/ must not depend on the tests.' };
// The tests' shared helpers live in src/testing/ (the settable clock, the recording logger, the
// process runner, the e2e clients): the specs and test/ import them, no file that ships does.
const TESTING = {
  group: ['**/testing/*'],
  message: "Only the specs and the tests import src/testing/, the tests' helpers.",
};
const FEATURES = {
  group: [
    ...['depreciation', 'rate-limit', 'metrics', 'logging', 'health', 'page', 'security'],
    ...['app.module', 'app.setup', 'app.factory', 'main', 'swagger'],
  ].map((name) => `../${name}`),
  message: 'config/, common/ and edge/ import no feature folder.',
};
const ASSEMBLY = ['src/app.setup.ts', 'src/main.ts', 'src/metrics/metrics.server.ts'];
const EDGE = {
  group: ['**/edge', '**/edge/*'],
  message:
    'Only the assembly (app.setup.ts, main.ts, metrics/metrics.server.ts) imports src/edge; shared pieces live in common/.',
};
const NO_SYMBOL_SLOTS = [
  'error',
  {
    selector: "CallExpression[callee.name='Symbol']",
    message:
      "No Symbol slots on Node's objects: connection state is a Connection (src/edge/connection.ts); per-request facts are WeakMaps.",
  },
  {
    selector: "CallExpression[callee.object.name='Symbol'][callee.property.name='for']",
    message:
      "No Symbol slots on Node's objects: connection state is a Connection (src/edge/connection.ts); per-request facts are WeakMaps.",
  },
];
const restrictImports = (...patterns) => ({
  'no-restricted-imports': ['error', { patterns }],
});

module.exports = defineConfig(
  {
    ignores: [
      ...['dist/', 'dist-bench/', 'coverage/', 'public/vendor/', 'clients/typescript/dist/'],
      // Written by @hey-api/openapi-ts (npm run client) and checked against it by a test, not by hand.
      'clients/typescript/src/generated/',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked, prettier],
    languageOptions: {
      globals: { ...globals.node, ...globals.jest },
      parserOptions: { project: ['tsconfig.json'], tsconfigRootDir: __dirname },
    },
    rules: {
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
      'no-console': ['error', { allow: ['error'] }],
    },
  },
  // Dependencies point down (README, "Architecture"): src/ never imports the tests, and only the
  // specs import their helpers (src/testing/); config/, common/ and edge/ import no feature folder;
  // the edge is the outermost layer, which only the assembly imports. A later entry replaces an
  // earlier one's rule for the same file, so each lists all of its patterns.
  { files: ['src/**/*.ts'], rules: restrictImports(TESTS, TESTING, EDGE) },
  {
    files: ['src/config/**/*.ts', 'src/common/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: restrictImports(TESTS, TESTING, FEATURES, EDGE),
  },
  { files: ['src/edge/**/*.ts'], rules: restrictImports(TESTS, TESTING, FEATURES) },
  { files: ASSEMBLY, rules: restrictImports(TESTS, TESTING) },
  {
    files: ['src/**/*.spec.ts', 'src/testing/**/*.ts'],
    ignores: ['src/edge/**'],
    rules: restrictImports(TESTS, EDGE),
  },
  { files: ['src/edge/**/*.spec.ts'], rules: restrictImports(TESTS, FEATURES) },
  { files: ['test/**/*.ts', 'bench/**/*.ts'], rules: restrictImports(EDGE) },
  // What the edge knows of a connection is one Connection (issue 29), not slots on Node's objects.
  {
    files: ['src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-syntax': NO_SYMBOL_SLOTS },
  },
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'src/testing/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      // app.getHttpServer() is typed `any` by Nest; supertest takes it as it is.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-console': 'off',
    },
  },
);
