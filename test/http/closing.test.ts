/** A request that arrives while the server closes gets a 503 ApiError, like every other error. */
import { Agent, request } from 'node:http';
import { test, type TestContext } from 'node:test';
import { makeTestApp } from '../helpers/app.ts';

function post(port: number, agent: Agent): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/board/game', agent }, res => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', chunk => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('requests during shutdown: 503 UNAVAILABLE ApiError with Connection: close', async (t: TestContext) => {
  const { app } = await makeTestApp();
  // Shutdown takes a while (streams saying goodbye, say): requests keep arriving on open connections.
  // This hook runs after the app's own (registered first), so once it has started the app is closing.
  let release = () => {};
  let started = () => {};
  const closingStarted = new Promise<void>(resolve => (started = resolve));
  app.addHook('preClose', () => {
    started();
    return new Promise<void>(resolve => (release = resolve));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  t.assert.equal((await post(port, agent)).status, 201);
  const closing = app.close();
  await closingStarted;
  const res = await post(port, agent);
  t.assert.equal(res.status, 503);
  t.assert.deepEqual(JSON.parse(res.body), { code: 'UNAVAILABLE', message: 'the server is shutting down' });
  t.assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  t.assert.equal(res.headers.connection, 'close');
  release();
  await closing;
});
