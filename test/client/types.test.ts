/**
 * The client's types say what the service accepts (DECISIONS §19): wrong usages are compile errors, and a correct
 * two-player game compiles. The TypeScript compiler checks, with the client's own configuration (client/tsconfig.json),
 *
 * - each file of client/test/types/fail/, which must not compile: it has one line marked `// error: expected`, and
 *   every error the compiler reports in it must be on that line (so a file cannot pass by failing for another
 *   reason, such as a wrong import);
 * - the two-player example, client/examples/twoPlayers.ts, which must compile with no error.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite, test } from 'node:test';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLIENT = join(ROOT, 'client');
const FAIL = join(CLIENT, 'test', 'types', 'fail');
const MUST_COMPILE = [join(CLIENT, 'examples', 'twoPlayers.ts')];
const MARK = '// error: expected';

const failing = readdirSync(FAIL)
  .filter(name => name.endsWith('.ts'))
  .sort()
  .map(name => join(FAIL, name));

/** One compilation of every file: each file's diagnostics as `line: message` (lines from 1). */
function compile(files: string[]): Map<string, Array<{ line: number; text: string }>> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(CLIENT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: diagnostic => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('client/tsconfig.json cannot be read');
  const program = ts.createProgram({ rootNames: files, options: { ...config.options, noEmit: true } });
  const byFile = new Map<string, Array<{ line: number; text: string }>>();
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file ? relative(ROOT, diagnostic.file.fileName) : '(no file)';
    const line = diagnostic.file ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1 : 0;
    const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    byFile.set(file, [...(byFile.get(file) ?? []), { line, text }]);
  }
  return byFile;
}

suite('the client types', () => {
  const diagnostics = compile([...failing, ...MUST_COMPILE]);
  const shown = (file: string) =>
    (diagnostics.get(file) ?? []).map(({ line, text }) => `${file}:${line}: ${text}`).join('\n');

  test('there are files that must not compile', () => {
    assert.ok(failing.length >= 4, `only ${failing.length} files in ${relative(ROOT, FAIL)}`);
  });

  for (const path of failing) {
    const file = relative(ROOT, path);
    test(`${file} fails to compile on its marked line only`, t => {
      const lines = readFileSync(path, 'utf8').split('\n');
      const marked = lines.flatMap((text, index) => (text.includes(MARK) ? [index + 1] : []));
      t.assert.equal(marked.length, 1, `${file} must mark exactly one line with '${MARK}'`);
      const errors = diagnostics.get(file) ?? [];
      assert.ok(errors.length > 0, `${file} compiles, but must not`);
      t.assert.deepEqual(
        errors.filter(error => error.line !== marked[0]),
        [],
        `${file} has errors off its marked line ${marked[0]}:\n${shown(file)}`,
      );
    });
  }

  for (const path of MUST_COMPILE) {
    const file = relative(ROOT, path);
    test(`${file} compiles`, t => {
      t.assert.equal(shown(file), '');
    });
  }

  test('no other file has errors (the client itself, its generated types)', t => {
    const others = [...diagnostics.keys()].filter(
      file =>
        !failing.some(path => relative(ROOT, path) === file) && !MUST_COMPILE.some(p => relative(ROOT, p) === file),
    );
    t.assert.deepEqual(others.map(shown), []);
  });
});
