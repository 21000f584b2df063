/**
 * Accounts on two instances sharing PostgreSQL (DECISIONS §20): an account made on one signs in on the other; the
 * failed sign-in limits are counted in the store, so failures on both count together; a session ended on one is
 * refused on the other at once (well within the 1 s the issue allows); a closed account's tokens end everywhere.
 */
import { suite, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTestApp, json } from '../helpers/app.ts';
import { Browser } from '../helpers/pages.ts';
import { databaseOfFile } from '../helpers/postgres.ts';
import { PostgresGameStore } from '../../src/store/postgres.ts';

const pg = await databaseOfFile();
const PASSWORD = 'correct horse battery';

suite('accounts on two PostgreSQL instances', { skip: pg.skip }, () => {
  const twoInstances = async (t: TestContext) => {
    const stores = await Promise.all([PostgresGameStore.open(pg.url()), PostgresGameStore.open(pg.url())]);
    t.after(() => Promise.all(stores.map(store => store.close())));
    const apps = await Promise.all(stores.map(store => makeTestApp({ store, sharedStore: true, accounts: true })));
    t.after(() => Promise.all(apps.map(made => made.app.close())));
    return apps.map(made => made.app);
  };

  test('made on one, signed in on the other; signed out on one, refused on the other', async (t: TestContext) => {
    const [a, b] = await twoInstances(t);
    const onA = new Browser(a!);
    t.assert.equal((await onA.submit('/signup', { username: 'SharedAnn', password: PASSWORD })).statusCode, 303);
    const onB = new Browser(b!);
    t.assert.equal((await onB.submit('/login', { username: 'sharedann', password: PASSWORD })).statusCode, 303);
    // The session of A works on B (same cookie), and the other way round.
    const sessionA = onA.cookies.get('session')!;
    const asA = (app: typeof a) =>
      app!.inject({
        method: 'GET',
        url: '/api/account',
        headers: { cookie: `session=${sessionA}`, 'sec-fetch-site': 'same-origin' },
      });
    t.assert.equal((await asA(b)).statusCode, 200);
    t.assert.equal(json(await asA(b)).player.id, 'sharedann');
    const started = Date.now();
    await onA.submit('/logout', {});
    t.assert.equal((await asA(b)).statusCode, 401, 'refused on the other instance');
    t.assert.ok(Date.now() - started < 1000, 'within a second');
    t.assert.equal((await onB.api('GET', '/api/account')).statusCode, 200, 'the other session stays');
  });

  test('failed sign-ins count on every instance: 3 on one and 2 on the other make the account wait', async (t: TestContext) => {
    const [a, b] = await twoInstances(t);
    await new Browser(a!).submit('/signup', { username: 'LimitedBob', password: PASSWORD });
    for (const [app, times] of [
      [a, 3],
      [b, 2],
    ] as const) {
      for (let i = 0; i < times; i++) {
        const res = await new Browser(app!).submit('/login', {
          username: 'limitedbob',
          password: `wrong password ${i}`,
        });
        t.assert.equal(res.statusCode, 401);
      }
    }
    for (const app of [a, b]) {
      const res = await new Browser(app!).submit('/login', { username: 'limitedbob', password: PASSWORD });
      t.assert.equal(res.statusCode, 429);
      t.assert.ok(Number(res.headers['retry-after']) > 0);
    }
  });

  test('an account closed on one: its sessions and tokens are refused on the other; its id is never given again', async (t: TestContext) => {
    const [a, b] = await twoInstances(t);
    const onA = new Browser(a!);
    await onA.submit('/signup', { username: 'ClosingCat', password: PASSWORD });
    const page = await onA.submit('/account/tokens', { description: 'script', scopes: ['board:play'] });
    const secret = /data-testid="new-token-secret">([A-Za-z0-9_]+)</.exec(page.body)![1]!;
    const bearer = { authorization: `Bearer ${secret}` };
    t.assert.equal((await b!.inject({ method: 'GET', url: '/api/account', headers: bearer })).statusCode, 200);
    const session = onA.cookies.get('session')!;
    const closed = await onA.submit('/account/close', { closePassword: PASSWORD });
    t.assert.equal(closed.statusCode, 303);
    // B remembers a token's lookup for up to LOOKUP_TTL_MS (it hears of revocations through its listener, which this
    // test does not start): refused within a second.
    const closedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - closedAt < 1000) {
      status = (await b!.inject({ method: 'GET', url: '/api/account', headers: bearer })).statusCode;
      if (status !== 401) await sleep(50);
    }
    t.assert.equal(status, 401, 'the token is refused on the other instance within a second');
    const sessionOnB = await b!.inject({
      method: 'GET',
      url: '/api/account',
      headers: { cookie: `session=${session}`, 'sec-fetch-site': 'same-origin' },
    });
    t.assert.equal(sessionOnB.statusCode, 401);
    const again = await new Browser(b!).submit('/signup', { username: 'closingcat', password: PASSWORD });
    t.assert.equal(again.statusCode, 400);
    t.assert.match(again.body, /is taken/);
  });
});
