// ESLint 9 in eslintrc mode: run with ESLINT_USE_FLAT_CONFIG=false (the npm scripts set it).
const TESTS = { group: ['**/test/**'], message: 'src/ must not depend on the tests.' };
const FEATURES = {
  group: [
    ...['depreciation', 'rate-limit', 'metrics', 'logging', 'health', 'page', 'security'],
    ...['testing', 'app.module', 'app.setup', 'app.factory', 'main', 'swagger'],
  ].map((name) => `../${name}`),
  message: 'config/ and common/ sit below the features: import only config/, common/ and edge/.',
};
const OUTSIDE_EDGE = {
  group: ['../*'],
  message: 'edge/ is the bottom layer of src/: it imports only its own files.',
};

module.exports = {
  root: true,
  parser: '@typescript-eslint/parser',
  parserOptions: {
    project: ['tsconfig.json'],
    tsconfigRootDir: __dirname,
    sourceType: 'module',
  },
  plugins: ['@typescript-eslint'],
  extends: [
    'eslint:recommended',
    'plugin:@typescript-eslint/recommended',
    'plugin:@typescript-eslint/recommended-requiring-type-checking',
    'plugin:prettier/recommended',
  ],
  env: { node: true, jest: true },
  ignorePatterns: [
    ...['.eslintrc.js', 'dist/', 'node_modules/', 'coverage/', 'public/vendor/'],
    // Written by @hey-api/openapi-ts (npm run client) and checked against it by a test, not by hand.
    'clients/typescript/src/generated/',
  ],
  rules: {
    '@typescript-eslint/explicit-module-boundary-types': 'off',
    '@typescript-eslint/no-explicit-any': 'error',
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-unused-vars': [
      'error',
      { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
    ],
    'no-console': ['error', { allow: ['error'] }],
  },
  overrides: [
    // Dependencies point down (README, "Architecture"): src/ never imports the tests; config/,
    // common/ and edge/ import no feature folder; edge/ is the floor and imports nothing of src/.
    {
      files: ['src/**/*.ts'],
      rules: { 'no-restricted-imports': ['error', { patterns: [TESTS] }] },
    },
    {
      files: ['src/config/**/*.ts', 'src/common/**/*.ts'],
      excludedFiles: ['*.spec.ts'],
      rules: { 'no-restricted-imports': ['error', { patterns: [TESTS, FEATURES] }] },
    },
    {
      files: ['src/edge/**/*.ts'],
      rules: { 'no-restricted-imports': ['error', { patterns: [TESTS, OUTSIDE_EDGE] }] },
    },
    {
      files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.ts'],
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
  ],
};
