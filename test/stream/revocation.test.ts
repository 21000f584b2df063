/**
 * Revoking a player token ends the streams opened with it (DECISIONS §13a), on one instance on SQLite: revoked
 * through the API, and by the command line in another process, which announces nothing (the server finds it by
 * asking the store about the tokens of its open streams). See revocation.ts for the scenario.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, suite, test, type TestContext } from 'node:test';
import { TOKEN_OUTPUT } from '../../scripts/build.ts';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { revocationScenario } from './revocation.ts';

const SERVICE = 'revocation-service-token';

suite('revoking a player token ends its streams, on SQLite', { timeout: 60_000 }, () => {
  let dir: string;
  let server: ServerProcess;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'chess-revocation-'));
    server = await startServer({
      DATABASE_URL: join(dir, 'chess.sqlite'),
      API_TOKENS: SERVICE,
      RATE_LIMIT_MAX: '0',
    });
  });
  after(async () => {
    await server.stop('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('revoked through the API: its game and event streams get UNAUTHORIZED and end within 1 s', async (t: TestContext) => {
    await revocationScenario(t, { streamsOn: server.url, revokeOn: server.url, service: SERVICE, tag: 'api' });
  });

  test('revoked by the command line in another process: the same, without any announcement', async (t: TestContext) => {
    await revocationScenario(t, {
      streamsOn: server.url,
      revokeOn: server.url,
      service: SERVICE,
      tag: 'cli',
      revoke: async id => {
        await promisify(execFile)(process.execPath, [TOKEN_OUTPUT, 'revoke', id], {
          env: { ...process.env, DATABASE_URL: join(dir, 'chess.sqlite') },
        });
      },
    });
  });
});
