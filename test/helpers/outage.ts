/**
 * A database outage for tests: a TCP proxy between an instance and PostgreSQL (TEST_POSTGRES_URL) that the test
 * cuts (every connection dropped, new ones refused) and restores. `cut({ listening: 'kept' })` drops the store's
 * pool only and keeps the connections that LISTEN for announcements (any that sent a `LISTEN`), as when the pool's
 * connections fail while the listening one stays up: then the instance hears of no outage through its
 * announcements, and no resynchronisation follows it.
 *
 * ```ts
 * const outage = new Outage();
 * await outage.start();
 * const server = await startServer({ DATABASE_URL: outage.url(db.url) });
 * outage.cut(); ... outage.restore();
 * await outage.close();
 * ```
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export class Outage {
  private server: Server | undefined;
  /** The client side of each connection, and whether it has sent a LISTEN. */
  private readonly connections = new Map<Socket, { upstream: Socket; listening: boolean }>();
  private down = false;
  port = 0;

  async start(): Promise<void> {
    const target = new URL(process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
    this.server = createServer(client => {
      if (this.down) {
        client.destroy();
        return;
      }
      const upstream = connect(Number(target.port || 5432), target.hostname);
      const connection = { upstream, listening: false };
      this.connections.set(client, connection);
      client.on('data', (chunk: Buffer) => {
        if (!connection.listening && chunk.includes('LISTEN ')) connection.listening = true;
      });
      for (const [a, b] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        a.on('error', () => b.destroy());
        a.on('close', () => {
          this.connections.delete(client);
          b.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>(resolve => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  /** `databaseUrl` through the proxy. */
  url(databaseUrl: string): string {
    const viaProxy = new URL(databaseUrl);
    viaProxy.host = `127.0.0.1:${this.port}`;
    return viaProxy.toString();
  }

  /**
   * Drops every connection and refuses new ones until `restore`; with `listening: 'kept'`, the connections that
   * LISTEN stay up.
   */
  cut({ listening = 'dropped' }: { listening?: 'dropped' | 'kept' } = {}): void {
    this.down = true;
    for (const [client, { upstream, listening: listens }] of this.connections) {
      if (listens && listening === 'kept') continue;
      client.destroy();
      upstream.destroy();
    }
  }

  /** Connections are accepted again. */
  restore(): void {
    this.down = false;
  }

  /** How many connections are open, and how many of them LISTEN. */
  open(): { connections: number; listening: number } {
    const all = [...this.connections.values()];
    return { connections: all.length, listening: all.filter(connection => connection.listening).length };
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>(resolve => this.server?.close(() => resolve()));
  }
}
