/**
 * Generates the typed client's files (client/, an npm workspace) from the document the service serves:
 *
 * - `client/openapi.json`: GET /openapi.json of an app with every route set registered (an in-memory store, and an
 *   engine that never plays, so that the computer's `POST /api/challenge/ai` is there too);
 * - `client/src/schema.ts`: that document's types, by openapi-typescript; the client (client/src/index.ts) takes
 *   every request, answer and stream event type from it, so no API type is written by hand;
 * - `client/src/streams.ts`: the NDJSON operations' paths and methods, which the client needs at run time (the
 *   types in client/src/streamTypes.ts say them too, and the file is checked against them).
 *
 * Both are formatted as prettier formats them. A unit test (test/client/generated.test.ts) regenerates them in
 * memory and fails when the committed ones differ: change the document, then run this.
 *
 * ```sh
 * npm run client:generate
 * ```
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { format, resolveConfig } from 'prettier';
import { ChangeFeed } from '../src/bus/feed.ts';
import { PlayerFeed } from '../src/bus/players.ts';
import { DomainError } from '../src/domain/errors.ts';
import type { EnginePool } from '../src/engine/index.ts';
import { buildApp } from '../src/http/app.ts';
import { Accounts } from '../src/service/accounts.ts';
import { OAuth } from '../src/service/oauth.ts';
import { PasswordHasher } from '../src/service/passwords.ts';
import { ChallengeService } from '../src/service/challenges.ts';
import { ChatService } from '../src/service/chat.ts';
import { GameExports } from '../src/service/gameExports.ts';
import { GameService } from '../src/service/games.ts';
import { newGameId } from '../src/service/ids.ts';
import { GamePresence } from '../src/service/presence.ts';
import { SeekService } from '../src/service/seeks.ts';
import { PlayerTokens } from '../src/service/tokens.ts';
import { MemoryGameStore } from '../src/store/memory.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The generated files, by their path from the root. */
export const CLIENT_FILES = ['client/openapi.json', 'client/src/schema.ts', 'client/src/streams.ts'] as const;
export type ClientFile = (typeof CLIENT_FILES)[number];

/** An engine for the document only: the route exists, and no game is ever played against it here. */
const noEngine: EnginePool = {
  search: () => Promise.reject(new DomainError('UNAVAILABLE', 'no engine')),
  available: () => Promise.resolve(false),
  close: () => Promise.resolve(),
};

/** The OpenAPI document an app with every route set serves (GET /openapi.json). */
export async function servedDocument(): Promise<Record<string, unknown>> {
  const store = new MemoryGameStore();
  const bus = new ChangeFeed(store);
  const players: PlayerFeed = new PlayerFeed((gameId, version) => games.gameAt(gameId, version));
  const ratings = store;
  const games: GameService = new GameService({
    store,
    ratings,
    bus,
    players,
    newId: newGameId,
    clock: () => new Date(),
  });
  const challenges = new ChallengeService({ store, ratings, games, players, ttlMs: 3_600_000 });
  const seeks = new SeekService({ store, ratings, games });
  const presence = new GamePresence({ store, now: () => games.now() });
  const chat = new ChatService({ store, games });
  const exports = new GameExports(store, games);
  const playerTokens = new PlayerTokens({ store, now: Date.now });
  const app = await buildApp({
    games,
    store,
    bus,
    players,
    playerTokens,
    accounts: {
      accounts: new Accounts({ store, tokens: playerTokens, passwords: new PasswordHasher(), now: Date.now }),
      oauth: new OAuth({ store, tokens: playerTokens, now: Date.now }),
    },
    challenges,
    seeks,
    presence,
    chat,
    exports,
    ratings,
    engine: noEngine,
  });
  try {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`GET /openapi.json answered ${res.statusCode}: ${res.body}`);
    return JSON.parse(res.body) as Record<string, unknown>;
  } finally {
    await app.close();
    challenges.close();
    seeks.close();
    presence.close();
  }
}

/** The operations that answer 200 with NDJSON (the streams): path and method. */
function streamOperations(document: Record<string, unknown>): Array<[path: string, method: string]> {
  type Operation = { responses?: Record<string, { content?: Record<string, unknown> }> };
  const paths = document.paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => operation.responses?.['200']?.content?.['application/x-ndjson'] !== undefined)
      .map(([method]): [string, string] => [path, method]),
  );
}

const STREAMS_HEADER = `/**
 * The chess game service's NDJSON operations (those whose 200 answer is application/x-ndjson), by path, with their
 * method: generated from client/openapi.json. Do not edit: run \`npm run client:generate\`.
 */
import type { StreamMethodOf, StreamPath } from './streamTypes.ts';

`;

const HEADER = `/**
 * The chess game service's OpenAPI document as TypeScript types, generated by openapi-typescript from
 * client/openapi.json. Do not edit: run \`npm run client:generate\`.
 */
`;

/** The generated files' contents, formatted as prettier formats them in this repository. */
export async function generateClient(): Promise<Record<ClientFile, string>> {
  const document = await servedDocument();
  const ast = await openapiTS(document as unknown as Parameters<typeof openapiTS>[0]);
  const pretty = async (file: ClientFile, text: string) => {
    const filepath = join(ROOT, file);
    const options = await resolveConfig(filepath);
    return format(text, { ...options, filepath });
  };
  return {
    'client/openapi.json': await pretty('client/openapi.json', JSON.stringify(document, null, 2)),
    'client/src/schema.ts': await pretty('client/src/schema.ts', HEADER + astToString(ast)),
    'client/src/streams.ts': await pretty(
      'client/src/streams.ts',
      `${STREAMS_HEADER}export const STREAM_METHODS = ${JSON.stringify(Object.fromEntries(streamOperations(document)))} as const satisfies { [Path in StreamPath]: StreamMethodOf<Path> };\n`,
    ),
  };
}

/** The generated files that differ from those in the working tree (none: client/ is current). */
export async function staleClientFiles(): Promise<ClientFile[]> {
  const generated = await generateClient();
  const stale: ClientFile[] = [];
  for (const file of CLIENT_FILES) {
    const committed = await readFile(join(ROOT, file), 'utf8').catch(() => undefined);
    if (committed !== generated[file]) stale.push(file);
  }
  return stale;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const generated = await generateClient();
  for (const file of CLIENT_FILES) {
    await writeFile(join(ROOT, file), generated[file]);
    process.stdout.write(`wrote ${file}\n`);
  }
}
