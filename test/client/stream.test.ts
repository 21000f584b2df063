/**
 * The client's requests and NDJSON reading, against a fetch of the test's own (no server): lines split anywhere
 * across chunks (inside a UTF-8 character too), heartbeats skipped, a last line without its newline, the request
 * each stream makes (method, URL, token, body), errors as ChessApiError (or a plain Error for an answer that is no
 * ApiError), and the connection's signal aborted when the stream is closed or left. The same against a real server:
 * test/stream/client.test.ts.
 */
import assert from 'node:assert/strict';
import { suite, test } from 'node:test';
import { ChessApiError, createChessClient } from 'chess-game-service-client';

const BASE = 'http://chess.test';

/** A fetch that answers every request with `answer` and keeps the requests. */
function fakeFetch(answer: (request: Request) => Response) {
  const requests: Request[] = [];
  const fetch = (input: Request | string | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    requests.push(request);
    return Promise.resolve(answer(request));
  };
  return { fetch, requests };
}

/** An NDJSON answer whose body is these chunks (strings as UTF-8, or bytes), then its end, or left open. */
function ndjson(chunks: Array<string | Uint8Array>, { open = false } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      if (!open) controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/x-ndjson' } });
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

suite('the client against a fetch of its own', () => {
  test('a stream yields each line once, heartbeats skipped, however the body is cut', async t => {
    const bytes = new TextEncoder().encode('State","state":{"pgn":"1. e4 *","name":"Émile"}}\n');
    const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of É
    const { fetch, requests } = fakeFetch(() =>
      ndjson([
        '\n{"type":"gameFull","game":{"gameId":"abcdefgh"}}\n\n\n{"type":"game',
        bytes.slice(0, split),
        bytes.slice(split),
        '\n   \n',
        '{"type":"error","error":{"code":"SERVER_SHUTDOWN","message":"bye"}}',
      ]),
    );
    const client = createChessClient({ baseUrl: BASE, token: 'secret', fetch });
    const events = await client.stream('/api/board/game/{gameId}/stream', { params: { path: { gameId: 'abcdefgh' } } });
    const seen: unknown[] = [];
    for await (const event of events) seen.push(event);
    t.assert.deepEqual(seen, [
      { type: 'gameFull', game: { gameId: 'abcdefgh' } },
      { type: 'gameState', state: { pgn: '1. e4 *', name: 'Émile' } },
      { type: 'error', error: { code: 'SERVER_SHUTDOWN', message: 'bye' } },
    ]);
    const [request] = requests;
    t.assert.equal(request?.method, 'GET');
    t.assert.equal(request?.url, `${BASE}/api/board/game/abcdefgh/stream`);
    t.assert.equal(request?.headers.get('authorization'), 'Bearer secret');
  });

  test("a real-time seek is the stream of a POST with the seek's body", async t => {
    const { fetch, requests } = fakeFetch(() => ndjson(['\n', '\n']));
    const client = createChessClient({ baseUrl: BASE, fetch, headers: { 'x-request-id': 'seek-1' } });
    const lines = [];
    for await (const line of await client.stream('/api/board/seek', { body: { time: 5, increment: 3 } })) {
      lines.push(line);
    }
    t.assert.deepEqual(lines, []);
    t.assert.equal(requests[0]?.method, 'POST');
    t.assert.equal(requests[0]?.url, `${BASE}/api/board/seek`);
    t.assert.equal(requests[0]?.headers.get('x-request-id'), 'seek-1');
    t.assert.deepEqual(await requests[0]?.json(), { time: 5, increment: 3 });
  });

  test('closing or leaving a stream aborts its request, and a later next() is done', async t => {
    const { fetch, requests } = fakeFetch(() => ndjson(['{"type":"gameFull","game":{}}\n'], { open: true }));
    const client = createChessClient({ baseUrl: BASE, fetch });
    const left = await client.stream('/api/stream/event');
    for await (const event of left) {
      t.assert.deepEqual(event, { type: 'gameFull', game: {} });
      break;
    }
    t.assert.equal(requests[0]?.signal.aborted, true);
    t.assert.deepEqual(await left.next(), { done: true, value: undefined });

    const closed = await client.stream('/api/stream/event');
    await closed.next();
    const waiting = closed.next(); // the body stays open: this waits until the close
    await closed.close();
    t.assert.deepEqual(await waiting, { done: true, value: undefined });
    t.assert.equal(requests[1]?.signal.aborted, true);

    const unread = await client.stream('/api/stream/event');
    await unread.return?.();
    t.assert.equal(requests[2]?.signal.aborted, true, 'a stream never read is closed too');
  });

  test("the caller's signal makes a waiting next() throw its reason", async t => {
    const { fetch, requests } = fakeFetch(() => ndjson([], { open: true }));
    const client = createChessClient({ baseUrl: BASE, fetch });
    const controller = new AbortController();
    const events = await client.stream('/api/stream/event', { signal: controller.signal });
    const waiting = events.next();
    const reason = new Error('leave');
    controller.abort(reason);
    await t.assert.rejects(waiting, error => error === reason);
    t.assert.equal(requests[0]?.signal.aborted, true);
  });

  test('a refused request throws ChessApiError; an answer that is no ApiError, a plain Error', async t => {
    const apiError = { code: 'INVALID_UCI', message: 'not a move', field: 'uci' };
    const { fetch } = fakeFetch(request =>
      request.url.endsWith('/stream')
        ? json(404, { code: 'GAME_NOT_FOUND', message: 'no such game' })
        : json(400, apiError),
    );
    const client = createChessClient({ baseUrl: BASE, fetch });
    const move = client.api.POST('/api/board/game/{gameId}/move/{uci}', {
      params: { path: { gameId: 'abcdefgh', uci: 'e2e9' } },
    });
    const answer = await move;
    t.assert.equal(answer.error?.code, 'INVALID_UCI');
    await t.assert.rejects(client.unwrap(move), (error: unknown) => {
      assert.ok(error instanceof ChessApiError);
      t.assert.deepEqual(
        [error.status, error.code, error.field, error.message, error.body],
        [400, 'INVALID_UCI', 'uci', '400 INVALID_UCI: not a move', apiError],
      );
      return true;
    });
    await t.assert.rejects(
      client.stream('/api/board/game/{gameId}/stream', { params: { path: { gameId: 'abcdefgh' } } }),
      (error: unknown) => error instanceof ChessApiError && error.status === 404 && error.code === 'GAME_NOT_FOUND',
    );

    const proxied = createChessClient({
      baseUrl: BASE,
      fetch: fakeFetch(() => new Response('<html>bad gateway</html>', { status: 502, statusText: 'Bad Gateway' }))
        .fetch,
    });
    await t.assert.rejects(
      proxied.unwrap(proxied.api.GET('/api/account')),
      (error: unknown) =>
        error instanceof Error && !(error instanceof ChessApiError) && error.message.startsWith('502 Bad Gateway'),
    );
  });

  test('unwrap answers the data of a success', async t => {
    const { fetch } = fakeFetch(() => json(200, { ok: true }));
    const client = createChessClient({ baseUrl: BASE, fetch });
    const answer = await client.unwrap(
      client.api.POST('/api/board/game/{gameId}/resign', { params: { path: { gameId: 'abcdefgh' } } }),
    );
    t.assert.deepEqual(answer, { ok: true });
  });
});
