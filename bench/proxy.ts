/**
 * A round-robin TCP proxy for the request benchmark's several instances (bench/run.ts `--instances N`): PORT on
 * 127.0.0.1 to the ports of BACKENDS (comma-separated), one connection each in turn.
 */
import { connect, createServer } from 'node:net';

function proxyProcess(): void {
  const backends = process.env.BACKENDS!.split(',').map(Number);
  let next = 0;
  const server = createServer({ noDelay: true }, client => {
    const upstream = connect({ port: backends[next++ % backends.length]!, host: '127.0.0.1', noDelay: true });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
    client.pipe(upstream).pipe(client);
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
}

// ---------------------------------------------------------------------------------------------------------
// Conductor.

proxyProcess();
