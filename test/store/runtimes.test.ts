/**
 * One data folder, every supported Node.js line: a SQLite folder written by a server on this Node.js opens on
 * another line (OTHER_NODE, the path of its `node`), which reads every game and changes it, and the folder opens
 * here again with that change. CI runs it on each line with another as OTHER_NODE (.ci/run); without it, the test
 * is skipped with a notice.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { skipReason } from '../helpers/external.ts';
import { startServer } from '../helpers/server.ts';

const otherNode = process.env.OTHER_NODE;

async function call(url: string, method = 'GET'): Promise<any> {
  const res = await fetch(url, { method });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

test(
  'a data folder written on this Node.js line opens on another one and back, with nothing lost',
  { skip: skipReason('another Node.js line (OTHER_NODE)', otherNode) },
  async (t: TestContext) => {
    const other = otherNode!;
    const versions = [process.version, execFileSync(other, ['--version'], { encoding: 'utf8' }).trim()];
    t.assert.notEqual(versions[0]!.split('.')[0], versions[1]!.split('.')[0], `two lines: ${versions.join(', ')}`);
    const dir = mkdtempSync(join(tmpdir(), 'chess-runtimes-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const env = { DATABASE_URL: join(dir, 'data', 'chess.sqlite') };

    // 1. This line: a game with moves, one taken back.
    const here = await startServer(env);
    const created = await call(`${here.url}/api/board/game`, 'POST');
    const game = `/api/board/game/${created.gameId}`;
    for (const uci of ['e2e4', 'c7c5', 'g1f3', 'd7d6']) await call(`${here.url}${game}/move/${uci}`, 'POST');
    await call(`${here.url}${game}/undo`, 'POST');
    const written = await call(`${here.url}${game}`);
    t.assert.equal(await here.stop(), 0);

    // 2. The other line reads the same game and changes it.
    const there = await startServer(env, { node: other });
    t.assert.deepEqual(await call(`${there.url}${game}`), written);
    await call(`${there.url}${game}/redo`, 'POST');
    const changed = await call(`${there.url}${game}`);
    t.assert.deepEqual(changed.state.moves, ['e2e4', 'c7c5', 'g1f3', 'd7d6']);
    t.assert.equal(await there.stop(), 0);

    // 3. Back on this line: the change made there is here.
    const back = await startServer(env);
    t.after(() => back.stop());
    t.assert.deepEqual(await call(`${back.url}${game}`), changed);
  },
);
