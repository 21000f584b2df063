/**
 * The Node.js versions the service runs on (package.json `engines.node`): the server refuses any other in one line
 * before it touches the SQLite driver, and the project's pinned runtime (`config.node`) is one it supports.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { ROOT } from '../../src/paths.ts';
import { SUPPORTED_NODE, unsupportedNode } from '../../src/runtime.ts';
import { buildServer, SERVER_OUTPUT } from '../../scripts/build.ts';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

test('supported versions: 22 from 22.12, 24 and 26 on; the pinned runtime is one of them', (t: TestContext) => {
  t.assert.equal(SUPPORTED_NODE, pkg.engines.node);
  for (const version of ['22.12.0', '22.23.3', '24.0.0', '24.21.0', '26.10.0', '27.1.0']) {
    t.assert.equal(unsupportedNode(version), undefined, version);
  }
  for (const version of ['18.20.8', '20.20.2', '22.11.0', '23.11.1', '25.9.0']) {
    t.assert.match(
      unsupportedNode(version) ?? '',
      new RegExp(`needs Node\\.js .*this is Node\\.js ${version}`),
      version,
    );
  }
  t.assert.equal(unsupportedNode(pkg.config.node), undefined, 'the pinned runtime');
});

test('the server started on an unsupported Node.js stops with one line naming the versions, exit code 2', async (t: TestContext) => {
  await buildServer({ ifStale: true });
  // This Node.js, made to report 20.20.2 before the bundle runs.
  const pretend = 'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"20.20.2"})';
  const run = spawnSync(process.execPath, ['--import', pretend, SERVER_OUTPUT], {
    encoding: 'utf8',
    env: { ...process.env, PORT: '0', DATABASE_URL: ':memory:' },
    timeout: 20_000,
  });
  t.assert.equal(run.status, 2);
  t.assert.equal(run.stdout, '');
  t.assert.equal(
    run.stderr,
    `this service needs Node.js ${SUPPORTED_NODE}; this is Node.js 20.20.2 (npm start picks a supported one by itself)\n`,
  );
});
