/**
 * The import rule of the lint (eslint.config.js, README Layout): imports run one way, contract → domain →
 * store/bus/engine → service → http, the page takes the contract only, the typed client nothing of src/, and no
 * module imports itself back. ESLint's own API lints small snippets placed as if they stood in the tree, with the
 * project's configuration and only the import rules: each wrong-way import or loop must fail, and the right way pass.
 */
import assert from 'node:assert/strict';
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

/** The code of a snippet that imports `name` from `from` and uses it, so that nothing but the import is judged. */
const snippet = (name: string, from: string) =>
  name.startsWith('type ')
    ? `import type { ${name.slice(5)} } from '${from}';\nexport type Used = ${name.slice(5)};\n`
    : `import { ${name} } from '${from}';\nexport const used = ${name};\n`;

/** Imports the wrong way, each from a file as if in the tree: [where, what, from where, why wrong]. */
const WRONG_WAY = [
  ['src/domain/scratch.ts', 'buildApp', '../http/app.ts', 'domain may import contract, domain only.'],
  // As the decline reasons once were (a loop of six files through the contract and the domain).
  ['src/contract/scratch.ts', 'DECLINE_REASONS', '../domain/challenge.ts', 'contract may import contract only.'],
  ['src/bus/scratch.ts', 'type PlayerTokens', '../service/tokens.ts', 'bus may import contract, domain, store, bus, '],
  ['src/service/scratch.ts', 'loadConfig', '../config.ts', 'service may import contract, domain, store, bus, '],
  ['src/web/scratch.ts', 'newGame', '../domain/game.ts', 'web may import contract, web only.'],
  ['client/src/scratch.ts', 'GameFull', '../../src/contract/shapes.ts', 'the typed client takes nothing of src/.'],
] as const;

for (const [path, name, from, why] of WRONG_WAY) {
  test(`fails: ${path} importing ${from}`, async () => {
    const [complaint, ...more] = await complaints(path, snippet(name, from));
    assert.deepEqual(more, []);
    assert.ok(
      complaint?.startsWith(
        `import-x/no-restricted-paths: Unexpected path "${from}" imported in restricted zone. ${why}`,
      ),
      complaint,
    );
  });
}

test('fails: a loop, even within one layer', async () => {
  // vocabulary.ts as it would be if it took a shape from shapes.ts, which imports vocabulary.ts: only no-cycle sees it.
  const found = await complaints('src/contract/vocabulary.ts', snippet('GameState', './shapes.ts'));
  assert.deepEqual(found, ['import-x/no-cycle: Dependency cycle detected']);
});

test('passes: imports the right way', async () => {
  for (const [path, name, from] of [
    ['src/http/scratch.ts', 'GameService', '../service/games.ts'],
    ['src/http/scratch.ts', 'DEFAULTS', '../defaults.ts'],
    ['src/service/scratch.ts', 'DomainError', '../domain/errors.ts'],
    ['src/store/scratch.ts', 'SQL_ROOT', '../paths.ts'],
    ['src/web/scratch.ts', 'GameFull', '../contract/shapes.ts'],
  ]) {
    assert.deepEqual(await complaints(path!, snippet(name!, from!)), [], `${path} importing ${from}`);
  }
});
