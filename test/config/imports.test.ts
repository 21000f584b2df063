/**
 * The import rule of the lint (eslint.config.js, README Layout): imports run one way, contract → domain →
 * store/bus/engine → service → http, the page takes the contract only, the typed client nothing of the service's
 * sources, and no module imports itself back. ESLint's own API lints small snippets placed as if they stood in the
 * tree, with the project's configuration and only the import rules, and each wrong-way import or loop must fail.
 */
import { test } from 'node:test';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// The project's configuration, the import rules alone: a snippet is judged by what it imports, not by its types (so
// it is parsed without the type-checker, which knows only the files on disk).
const eslint = new ESLint({
  cwd: ROOT,
  ruleFilter: ({ ruleId }) => ruleId.startsWith('import-x/'),
  overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
});

/** The import rules' complaints about `code` placed at `path`: each `rule: message`. */
async function complaints(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, path) });
  const fatal = result!.messages.filter(message => message.fatal);
  if (fatal.length > 0) throw new Error(`${path} did not parse: ${fatal.map(message => message.message).join('; ')}`);
  return result!.messages.map(message => `${message.ruleId}: ${message.message}`);
}

test('the domain importing http fails', async t => {
  const found = await complaints(
    'src/domain/scratch.ts',
    "import { buildApp } from '../http/app.ts';\nexport const app = buildApp;\n",
  );
  t.assert.deepStrictEqual(found, [
    'import-x/no-restricted-paths: Unexpected path "../http/app.ts" imported in restricted zone. ' +
      'domain may import contract, domain only.',
  ]);
});

test('the contract importing the domain fails, as the decline reasons once did', async t => {
  const found = await complaints(
    'src/contract/scratch.ts',
    "import { DECLINE_REASONS } from '../domain/challenge.ts';\nexport const reasons = DECLINE_REASONS;\n",
  );
  t.assert.deepStrictEqual(found, [
    'import-x/no-restricted-paths: Unexpected path "../domain/challenge.ts" imported in restricted zone. ' +
      'contract may import contract only.',
  ]);
});

test('the bus importing the service fails, a type too', async t => {
  const found = await complaints(
    'src/bus/scratch.ts',
    "import type { PlayerTokens } from '../service/tokens.ts';\nexport type Tokens = PlayerTokens;\n",
  );
  t.assert.equal(found.length, 1);
  t.assert.match(found[0]!, /^import-x\/no-restricted-paths: .*"\.\.\/service\/tokens\.ts"/);
});

test('the service importing the composition root fails', async t => {
  const found = await complaints(
    'src/service/scratch.ts',
    "import { loadConfig } from '../config.ts';\nexport const load = loadConfig;\n",
  );
  t.assert.equal(found.length, 1);
  t.assert.match(found[0]!, /^import-x\/no-restricted-paths: .*"\.\.\/config\.ts"/);
});

test('the page importing the domain, and the typed client importing the service, fail', async t => {
  const page = await complaints(
    'src/web/scratch.ts',
    "import { newGame } from '../domain/game.ts';\nexport const make = newGame;\n",
  );
  t.assert.deepStrictEqual(page, [
    'import-x/no-restricted-paths: Unexpected path "../domain/game.ts" imported in restricted zone. ' +
      'web may import contract, web only.',
  ]);
  const client = await complaints(
    'client/src/scratch.ts',
    "import { GameFull } from '../../src/contract/shapes.ts';\nexport const shape = GameFull;\n",
  );
  t.assert.equal(client.length, 1);
  t.assert.match(client[0]!, /^import-x\/no-restricted-paths: .*the typed client takes nothing of src\/\./);
});

test('a loop fails, even within one layer', async t => {
  // vocabulary.ts as it would be if it took a shape from shapes.ts, which imports vocabulary.ts.
  const found = await complaints(
    'src/contract/vocabulary.ts',
    "import { GameState } from './shapes.ts';\nexport const state = GameState;\n",
  );
  t.assert.deepStrictEqual(found, ['import-x/no-cycle: Dependency cycle detected']);
});

test('imports the right way pass', async t => {
  const code =
    "import { GameService } from '../service/games.ts';\nimport { DomainError } from '../domain/errors.ts';\n" +
    "import { DEFAULTS } from '../defaults.ts';\nexport const used = [GameService, DomainError, DEFAULTS];\n";
  t.assert.deepStrictEqual(await complaints('src/http/scratch.ts', code), []);
  const page = "import { GameFull } from '../contract/shapes.ts';\nexport const shape = GameFull;\n";
  t.assert.deepStrictEqual(await complaints('src/web/scratch.ts', page), []);
});
