/**
 * HTTP/1.1 pipelining (DECISIONS §15): requests sent back to back on one connection, before any answer, are
 * answered in order, and each sees the effects of the requests before it. Real sockets: the point is requests
 * that arrive together on one connection.
 */
import { connect } from 'node:net';
import { test, type TestContext } from 'node:test';
import { listenApp } from './helpers.ts';
import { clientOf } from '../helpers/client.ts';

interface Answer {
  status: number;
  body: string;
}

/** Sends `requests` on one connection in one write and reads `requests.length` answers (Content-Length bodies). */
function pipeline(url: string, requests: string[]): Promise<Answer[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let buffer = Buffer.alloc(0);
    const answers: Answer[] = [];
    socket.on('error', reject);
    socket.on('data', chunk => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < end + 4 + length) return;
        const status = Number(head.split(' ')[1]);
        answers.push({ status, body: buffer.subarray(end + 4, end + 4 + length).toString('utf8') });
        buffer = buffer.subarray(end + 4 + length);
        if (answers.length === requests.length) {
          socket.end();
          resolve(answers);
          return;
        }
      }
    });
    socket.write(requests.join(''));
  });
}

const request = (method: string, path: string, host: string): string =>
  `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`;

test('pipelined requests are answered in order, each after the effects of those before it', async (t: TestContext) => {
  const server = await listenApp(t);
  const host = new URL(server.url).host;
  const client = clientOf(server.url);
  const { gameId } = await client.unwrap(client.api.POST('/api/board/game', { body: {} }));
  const game = `/api/board/game/${gameId}`;
  const steps: Array<[string, string]> = [
    ['POST', `${game}/move/e2e4`],
    ['GET', `${game}/export/fen`],
    ['POST', `${game}/move/e7e5`],
    ['GET', `${game}/export/fen`],
    ['POST', `${game}/undo`],
    ['GET', game],
    ['POST', `${game}/move/e7e6`],
    ['GET', `${game}/moves?square=d2`],
    ['GET', `${game}/export/fen`],
  ];
  const answers = await pipeline(
    server.url,
    steps.map(([method, path]) => request(method, path, host)),
  );
  t.assert.deepStrictEqual(
    answers.map(answer => answer.status),
    [200, 200, 200, 200, 200, 200, 200, 200, 200],
  );
  t.assert.equal(answers[1]!.body, 'rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1');
  t.assert.equal(answers[3]!.body, 'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2');
  t.assert.deepStrictEqual((JSON.parse(answers[5]!.body) as { state: { moves: string[] } }).state.moves, ['e2e4']);
  t.assert.deepStrictEqual(
    (JSON.parse(answers[7]!.body) as { moves: Array<{ uci: string }> }).moves.map(move => move.uci).sort(),
    ['d2d3', 'd2d4'],
  );
  t.assert.equal(answers[8]!.body, 'rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2');
});
