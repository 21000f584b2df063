/**
 * What revoking a player token does to the streams opened with it (DECISIONS §13a), over real sockets: each of its
 * game and event streams gets an `error` line `UNAUTHORIZED` and then the end of its response, within 1 s of the
 * revocation, on the instance that revoked it and on any other; the streams of other tokens (another token of the
 * same player, another player's, a service token's) stay open and go on. Used on SQLite (test/stream) and across
 * two PostgreSQL instances (test/cluster).
 *
 * ```ts
 * await revocationScenario(t, { streamsOn: a, revokeOn: b, service: SERVICE, tag: 'pg-other' });
 * ```
 */
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { within } from '../helpers/server.ts';
import { clientOf, gameAction } from '../helpers/client.ts';
// The streams are read raw (openStream): the test checks that each ends cleanly, with no cut line.
import { openStream } from './helpers.ts';

/** The bound of DECISIONS §13a. */
export const REVOKED_STREAMS_END_MS = 1000;

/** Issues a token for the player `id` through `base` (a second call issues another token of the same player). */
export async function issueToken(base: string, service: string, id: string) {
  const res = await clientOf(base, service).api.POST('/api/tokens', { body: { player: { id, displayName: id } } });
  if (res.response.status !== 201) throw new Error(`issue: ${res.response.status} ${JSON.stringify(res.error)}`);
  return res.data!;
}

export interface RevocationOptions {
  streamsOn: string; // the instance the streams are opened on
  revokeOn: string; // the instance the token is revoked through (DELETE /api/tokens/{id})
  service: string; // a service token of both
  tag: string; // makes the players' ids unique to this run
  /** Revokes the token some other way (the command line); resolves once it is revoked. */
  revoke?: (tokenId: string) => Promise<void>;
}

export async function revocationScenario(t: TestContext, options: RevocationOptions): Promise<void> {
  const { streamsOn, revokeOn, service, tag } = options;
  const ann = await issueToken(streamsOn, service, `ann-${tag}`);
  const annAgain = await issueToken(streamsOn, service, `ann-${tag}`); // another token of the same player
  const cid = await issueToken(streamsOn, service, `cid-${tag}`);
  const created = await clientOf(streamsOn, service).api.POST('/api/board/game', {
    body: { white: ann.player, black: cid.player },
  });
  t.assert.equal(created.response.status, 201);
  const gameId = created.data!.gameId;
  const gamePath = `/api/board/game/${gameId}/stream`;
  const open = async (what: string, path: string, token: string) => {
    const stream = await openStream(`${streamsOn}${path}`, { headers: { authorization: `Bearer ${token}` } });
    t.after(() => stream.close());
    t.assert.equal(stream.status, 200, `${what}: ${stream.body}`);
    await stream.waitForEvents(1); // the gameFull, or the gameStart of the ongoing game
    return { what, stream };
  };
  const revoked = [
    await open("the revoked token's game stream", gamePath, ann.token),
    await open("the revoked token's event stream", '/api/stream/event', ann.token),
  ];
  const kept = [
    await open("another token of the same player's game stream", gamePath, annAgain.token),
    await open("another token of the same player's event stream", '/api/stream/event', annAgain.token),
    await open("another player's game stream", gamePath, cid.token),
    await open("another player's event stream", '/api/stream/event', cid.token),
    await open("a service token's game stream", gamePath, service),
    await open(
      "a service token's event stream of the same player",
      `/api/stream/event?player=${ann.player.id}`,
      service,
    ),
  ];
  const ended = revoked.map(({ stream }) => stream.finished.then(how => ({ how, at: performance.now() })));

  if (options.revoke) {
    await options.revoke(ann.id);
  } else {
    const res = await clientOf(revokeOn, service).api.DELETE('/api/tokens/{id}', { params: { path: { id: ann.id } } });
    t.assert.deepEqual([res.response.status, res.data], [200, { ok: true }]);
  }
  const since = performance.now();

  for (const [index, { what, stream }] of revoked.entries()) {
    const { how, at } = await within(ended[index]!, 5000, `${what}: its end`);
    const took = at - since;
    t.diagnostic(`${what} ended at ${took.toFixed(0)} ms from the acknowledgment of the revocation`);
    t.assert.ok(took < REVOKED_STREAMS_END_MS, `${what} ended after ${took.toFixed(0)} ms`);
    t.assert.equal(how, 'end', `${what}: the response ends cleanly`);
    t.assert.deepEqual(
      stream.events.at(-1),
      { type: 'error', error: { code: 'UNAUTHORIZED', message: stream.events.at(-1)?.error?.message } },
      `${what}: an UNAUTHORIZED error line last`,
    );
    t.assert.equal(stream.rest, '', `${what}: no cut line`);
  }
  // The token is refused by both instances from now on.
  for (const base of new Set([streamsOn, revokeOn])) {
    t.assert.equal((await clientOf(base, ann.token).api.GET('/api/account')).response.status, 401);
  }

  // The streams of the other tokens stay open past the bound, and go on: a move reaches the game streams.
  await sleep(Math.max(0, since + REVOKED_STREAMS_END_MS + 200 - performance.now()));
  for (const { what, stream } of kept) t.assert.equal(stream.done, false, `${what} stays open`);
  const games = kept.filter(({ what }) => what.endsWith('game stream'));
  const before = games.map(({ stream }) => stream.events.length);
  t.assert.equal((await gameAction(clientOf(revokeOn, annAgain.token), gameId, 'move/e2e4')).status, 200);
  for (const [index, { what, stream }] of games.entries()) {
    const [line] = (await stream.waitForEvents(before[index]! + 1)).slice(-1) as [any];
    t.assert.deepEqual([line.type, line.state.moves], ['gameState', ['e2e4']], what);
  }
  for (const { what, stream } of kept) t.assert.equal(stream.done, false, `${what} is still open`);
}
