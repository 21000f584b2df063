/**
 * Revoking a player token ends the streams opened with it on every instance (DECISIONS §13a): two instances on one
 * PostgreSQL database, the streams on the first, the token revoked through the first and then through the second.
 * See test/stream/revocation.ts for the scenario.
 */
import { suite, test, type TestContext } from 'node:test';
import { twoPostgresInstances } from '../helpers/server.ts';
import { postgresSkip } from '../helpers/postgres.ts';
import { revocationScenario } from '../stream/revocation.ts';

const skip = await postgresSkip();
const SERVICE = 'cluster-revocation-service-token';

suite('revoking a player token ends its streams on every PostgreSQL instance', { skip, timeout: 90_000 }, () => {
  const instances = twoPostgresInstances(SERVICE);

  test('revoked through the instance the streams are on', async (t: TestContext) => {
    const [a] = instances.urls();
    await revocationScenario(t, { streamsOn: a, revokeOn: a, service: SERVICE, tag: 'same' });
  });

  test('revoked through the other instance', async (t: TestContext) => {
    const [a, b] = instances.urls();
    await revocationScenario(t, { streamsOn: a, revokeOn: b, service: SERVICE, tag: 'other' });
  });
});
