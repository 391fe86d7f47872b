// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Tests must never be focused or skipped in the tree.
const focusedOrSkipped = ['it', 'describe', 'test'].flatMap((object) =>
  ['only', 'skip', 'todo'].map((property) => ({ object, property, message: 'No focused, skipped or todo tests in the tree.' })),
);

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', ...focusedOrSkipped],
    },
  },
  {
    // One place reads the environment: src/config.ts.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...focusedOrSkipped,
        { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env.' },
      ],
    },
  },
  {
    // The domain is pure: no adapters, no I/O.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['**/adapters/**', '**/http/**', '**/services/**', 'node:fs', 'node:net', 'node:http'] }],
    },
  },
  {
    // The dashboard is a client of the public /v1 API like any other: no server code in the browser bundle.
    files: ['src/dashboard/**/*.ts', 'src/dashboard/**/*.tsx'],
    ignores: ['src/dashboard/vite.config.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/adapters/**', '**/services/**', '**/domain/**', '**/http/**', '**/pipeline/**', '**/delivery/**', '**/observability/**', 'node:*'],
              message: 'The dashboard talks to the public /v1 API only (src/dashboard/api/client.ts).',
            },
          ],
        },
      ],
    },
  },
  {
    // Tests assert on JSON bodies whose shape is the thing under test: reading them as `any` is the
    // honest type there. Promise discipline (no-floating-promises) still applies to tests.
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
);
