// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Every test in the tree runs: no focused, skipped, todo, conditional or expected-to-fail forms. A test
// that cannot run on some machine says why at run time, giving its test context's `skip` a written
// reason; the run's summary lists it with that reason, and a whole run fails on a skip without one
// (test/run-all.sh).
const TEST_FUNCTIONS = /^(it|test|describe|suite|bench)$/;
/** The call's argument `index` is a written, non-empty string. */
const reasonAt = (index) => `:matches([arguments.${index}.type='TemplateLiteral'], [arguments.${index}.type='Literal'][arguments.${index}.value=/\\S/])`;
const WITH_REASON = `:matches([arguments.length=1]${reasonAt(0)}, [arguments.length=2]${reasonAt(1)})`;
const EVERY_TEST_RUNS = 'Every test runs: no .only, .skip, .skipIf, .runIf, .todo or .fails. A test that cannot run here calls its context\'s skip with a written reason.';
const skippedOrFocused = [
  { selector: 'MemberExpression[property.name=/^(only|skipIf|runIf|todo|fails)$/]', message: EVERY_TEST_RUNS },
  // skip on a test function, or on a chain of one (concurrent, each)
  { selector: `MemberExpression[property.name='skip']:matches([object.name=${TEST_FUNCTIONS}], [object.type=/^(MemberExpression|CallExpression)$/])`, message: EVERY_TEST_RUNS },
  // the test context's skip without a written reason, called on the context or destructured
  { selector: `CallExpression[callee.property.name='skip']:not([callee.object.name=${TEST_FUNCTIONS}]):not(${WITH_REASON})`, message: EVERY_TEST_RUNS },
  { selector: `CallExpression[callee.name='skip']:not(${WITH_REASON})`, message: 'skip() gives its reason as a written string: skip(reason) or skip(condition, reason).' },
];

/**
 * The layers of src/, lowest first, and what each may import (docs/architecture.md draws them). An
 * import that runs upward, or sideways into a layer not listed, fails the lint and so the build.
 * The top (src/container.ts, main.ts, server.ts, cli.ts, src/cli/) wires everything and may import
 * anything; src/config.ts is read there and handed down as values.
 */
const LAYERS = {
  lib: [],
  domain: ['lib'],
  ports: ['domain', 'lib'],
  observability: ['domain', 'lib', 'ports'],
  adapters: ['domain', 'lib', 'ports', 'observability'],
  delivery: ['domain', 'lib', 'ports', 'observability'],
  services: ['domain', 'lib', 'ports', 'observability', 'delivery'],
  pipeline: ['domain', 'lib', 'ports', 'observability', 'delivery', 'services'],
  http: ['domain', 'lib', 'ports', 'observability', 'services'],
};
const TOP = ['**/container.js', '**/main.js', '**/server.js', '**/cli.js', '**/cli/**', '**/config.js'];
/**
 * Packages of the external systems, and the one layer that may load each: adapters/ for the stores
 * and the bus, delivery/ for SMTP (it owns outbound traffic). Every other layer sees a port.
 */
const LIBRARY_OWNERS = {
  adapters: ['@mikro-orm/*', 'kafkajs', 'ioredis', '@clickhouse/client', 'chdb', 'rate-limiter-flexible'],
  delivery: ['nodemailer'],
};
const librariesOutside = (layer) => Object.entries(LIBRARY_OWNERS).flatMap(([owner, libraries]) => (owner === layer ? [] : libraries));

function layerBoundaries() {
  const layers = Object.keys(LAYERS);
  const rule = (layer, forbidden, extra = []) => [
    'error',
    {
      patterns: [
        {
          group: [...forbidden.map((other) => `**/${other}/**`), ...TOP],
          message: `${layer}/ may import only ${[layer, ...LAYERS[layer]].join(', ')} (docs/architecture.md).`,
        },
        ...extra,
      ],
    },
  ];
  const libraries = (layer) => ({ group: librariesOutside(layer), message: 'A library of an external system is loaded by its own layer only; use the port.' });
  return [
    ...layers.map((layer) => ({
      files: [`src/${layer}/**/*.ts`],
      ignores: ['src/**/*.test.ts'],
      rules: {
        'no-restricted-imports': rule(
          layer,
          layers.filter((other) => other !== layer && !LAYERS[layer].includes(other)),
          [
            libraries(layer),
            ...(layer === 'domain' ? [{ group: ['node:fs', 'node:net', 'node:http'], message: 'The domain is pure: no I/O.' }] : []),
          ],
        ),
      },
    })),
    {
      // Routes take services, never ports: what a route may do is what a service offers.
      files: ['src/http/routes/**/*.ts'],
      ignores: ['src/**/*.test.ts'],
      rules: {
        'no-restricted-imports': rule('http', layers.filter((other) => !LAYERS.http.includes(other) && other !== 'http').concat('ports'), [libraries('http')]),
      },
    },
  ];
}

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
    },
  },
  {
    // One place reads the environment: src/config.ts.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Only src/config.ts reads process.env.' },
      ],
    },
  },
  ...layerBoundaries(),
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
      'no-restricted-syntax': ['error', ...skippedOrFocused],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
