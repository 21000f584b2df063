/**
 * Revoking a player token ends the streams opened with it on every instance (DECISIONS §13a): two instances on one
 * PostgreSQL database, the streams on the first, the token revoked through the first and then through the second.
 * See test/stream/revocation.ts for the scenario.
 */
import { after, before, suite, test, type TestContext } from 'node:test';
import { startServer, type ServerProcess } from '../helpers/server.ts';
import { createTestDatabase, postgresSkip, type TestDatabase } from '../helpers/postgres.ts';
import { revocationScenario } from '../stream/revocation.ts';

const skip = await postgresSkip();
const SERVICE = 'cluster-revocation-service-token';

suite('revoking a player token ends its streams on every PostgreSQL instance', { skip, timeout: 90_000 }, () => {
  let db: TestDatabase;
  const servers: ServerProcess[] = [];
  before(async () => {
    db = await createTestDatabase();
    const env = { DATABASE_URL: db.url, API_TOKENS: SERVICE, RATE_LIMIT_MAX: '0' };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
  });
  after(async () => {
    await Promise.all(servers.map(server => server.stop('SIGTERM')));
    await db.drop();
  });

  test('revoked through the instance the streams are on', async (t: TestContext) => {
    const [a] = servers.map(server => server.url) as [string, string];
    await revocationScenario(t, { streamsOn: a, revokeOn: a, service: SERVICE, tag: 'same' });
  });

  test('revoked through the other instance', async (t: TestContext) => {
    const [a, b] = servers.map(server => server.url) as [string, string];
    await revocationScenario(t, { streamsOn: a, revokeOn: b, service: SERVICE, tag: 'other' });
  });
});
