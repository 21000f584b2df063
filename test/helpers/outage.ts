/**
 * A database outage for tests: a TCP proxy to PostgreSQL (TEST_POSTGRES_URL) between one server process and the
 * database, which a test cuts (every connection dropped, new ones refused) and restores. `cut({ keepListening })`
 * spares the connections that have sent a LISTEN: the pool's connections are gone while the instance still hears
 * the announcements, so that it has no reason to look at anything again.
 *
 * ```ts
 * const outage = new Outage();
 * await outage.start();
 * const server = await startServer({ DATABASE_URL: outage.url(db.url) });
 * outage.cut();
 * outage.restore();
 * await outage.close();
 * ```
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { ADMIN_URL } from './postgres.ts';

interface Connection {
  sockets: [Socket, Socket]; // the client's and the upstream one
  listening: boolean; // it has sent a LISTEN
}

export class Outage {
  private server: Server | undefined;
  private readonly connections = new Set<Connection>();
  private down = false;
  port = 0;

  async start(): Promise<void> {
    const target = new URL(ADMIN_URL);
    this.server = createServer(client => {
      if (this.down) {
        client.destroy();
        return;
      }
      const upstream = connect(Number(target.port || 5432), target.hostname);
      const connection: Connection = { sockets: [client, upstream], listening: false };
      this.connections.add(connection);
      client.on('data', (chunk: Buffer) => {
        if (!connection.listening && chunk.includes('LISTEN ')) connection.listening = true;
      });
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.connections.delete(connection);
          b.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** `url` (a database on TEST_POSTGRES_URL's server) through the proxy. */
  url(url: string): string {
    const viaProxy = new URL(url);
    viaProxy.host = `127.0.0.1:${this.port}`;
    return viaProxy.toString();
  }

  /** Drops every connection (but those that LISTEN, with `keepListening`) and refuses new ones. */
  cut({ keepListening = false }: { keepListening?: boolean } = {}): void {
    this.down = true;
    for (const connection of this.connections) {
      if (keepListening && connection.listening) continue;
      for (const socket of connection.sockets) socket.destroy();
    }
  }

  /** Connections that LISTEN, open now. */
  listening(): number {
    return [...this.connections].filter(connection => connection.listening).length;
  }

  restore(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>(resolve => this.server?.close(() => resolve()));
  }
}
