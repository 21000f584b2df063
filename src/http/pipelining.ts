/**
 * HTTP pipelining answered in order: a request goes on only once the previous request of its connection has been
 * answered, so that a stream opened on a connection is never overtaken by the requests pipelined behind it.
 *
 * ```ts
 * app.addHook('onRequest', oneAtATimePerConnection);
 * ```
 */
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The requests of one connection: whether one is running, and the next ones' starts, in arrival order. */
interface ConnectionQueue {
  current: ServerResponse; // the response of the request that went on last
  waiting: Array<() => void>; // the requests after it, in order
}
const connectionQueues = new WeakMap<object, ConnectionQueue>();

/**
 * An onRequest hook that lets a request go on only once the previous request of its connection has been answered
 * (its response closed, which a stream's does when it ends). A request alone on its connection, the usual case,
 * goes on at once, and only a request that has to wait listens for the end of the one before it.
 */
export function oneAtATimePerConnection(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  const connection = request.raw.socket as Socket | null;
  if (!connection) return done();
  const queue = connectionQueues.get(connection);
  if (!queue) {
    connectionQueues.set(connection, { current: reply.raw, waiting: [] });
    return done();
  }
  if (queue.waiting.length === 0 && queue.current.closed) {
    queue.current = reply.raw;
    return done();
  }
  queue.waiting.push(() => {
    queue.current = reply.raw;
    done();
  });
  if (queue.waiting.length === 1) startNextAfterCurrent(queue, connection);
}

/** Lets the first waiting request go on once the current response has closed, and so on while requests wait. */
function startNextAfterCurrent(queue: ConnectionQueue, connection: Socket): void {
  let started = false;
  const next = () => {
    if (started) return;
    started = true;
    queue.waiting.shift()?.();
    if (queue.waiting.length > 0) startNextAfterCurrent(queue, connection);
  };
  if (queue.current.closed) return process.nextTick(next);
  queue.current.once('close', next);
  // A connection already gone closes no response of its own any more: let the next one go on too.
  if (connection.destroyed) process.nextTick(next);
}
