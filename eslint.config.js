import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';

/** The layers of src/, bottom first: each imports its own folder and those below it (store, bus, engine: one). */
const LAYERS = [['contract'], ['domain'], ['store', 'bus', 'engine'], ['service'], ['http']];
/** The modules of src/ that are data only and import nothing, which the server's layers above the domain may read. */
const LEAVES = ['defaults.ts', 'paths.ts'];

/**
 * The no-restricted-paths zone of one folder or file of src/: it may import `allowed` (names under src/) only.
 * @param {string} name
 * @param {string[]} allowed
 */
const zone = (name, allowed) => ({
  target: `./src/${name}`,
  from: './src',
  except: allowed.map(other => `./${other}`),
  message: allowed.length === 0 ? `${name} imports nothing of src/.` : `${name} may import ${allowed.join(', ')} only.`,
});

const LAYER_ZONES = LAYERS.flatMap((names, index) => {
  const allowed = [...LAYERS.slice(0, index + 1).flat(), ...(index >= 2 ? LEAVES : [])];
  return names.map(name => zone(name, allowed));
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'data/',
      // Generated from the OpenAPI document (npm run client:generate): its types are what the document says.
      'client/src/schema.ts',
      // Files that must not compile (client/test/types.test.ts checks their errors).
      'client/test/types/fail/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['eslint.config.js', 'scripts/runtime.mjs', 'test/engine/fakeEngine.mjs'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-unnecessary-condition': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after'] },
          ],
        },
      ],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Plain JavaScript run by any Node.js, even one the project does not support (scripts/node).
    files: ['scripts/runtime.mjs'],
    languageOptions: { globals: { process: 'readonly' } },
  },
  {
    // Imports run one way (README, Layout): LAYERS bottom first, the composition root (config.ts, server.ts, token.ts,
    // runtime.ts) above them all with no zone of its own; defaults.ts and paths.ts import nothing. The page (src/web)
    // takes its shapes from the contract only, and the typed client (client/src) nothing of src/. No module imports
    // itself back through others (no-cycle; type-only imports aside, which leave nothing at run time).
    // test/config/imports.test.ts checks that a wrong-way import and a loop fail.
    files: ['src/**/*.ts', 'client/src/**/*.ts'],
    plugins: { 'import-x': importX },
    // The modules the rules follow are TypeScript, imported by their own file names (`./games.ts`).
    settings: { 'import-x/extensions': ['.ts'], 'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] } },
    rules: {
      'import-x/no-cycle': 'error',
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            ...LAYER_ZONES,
            ...LEAVES.map(leaf => zone(leaf, [])),
            zone('web', ['contract', 'web']),
            { target: './client/src', from: './src', message: 'the typed client takes nothing of src/.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['node:*', 'fs', 'net', 'http', 'better-sqlite3', 'pg', 'fastify*', '../store/*', '../http/*'],
              message: 'The domain is pure: no I/O.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'setTimeout', 'setInterval'],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random' },
        { object: 'Date', property: 'now' },
      ],
    },
  },
);
