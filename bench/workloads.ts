/**
 * The request benchmark's workloads (bench/run.ts): what each sends, built for each round by the load process
 * (bench/load.ts) from the conductor's job.
 *
 * - `getGame`: GET a game of 80 plies; `moves`: GET the legal moves of a middlegame position;
 * - `move`: POST a move, each game a fixed cycle of knight moves, spread over enough fresh games that none reaches
 *   fivefold repetition;
 * - `create`: POST create; `import`: POST import of an 80-ply PGN;
 * - `export`: GET a player's 100 newest games of 80 plies as PGN (DECISIONS §22: `GET /api/games/user/{id}`);
 * - `growth` (only when named): alternating undo and redo in games of 10 and of 400 plies.
 */
import { inParallel } from './common.ts';

// Each move cycle returns to its start after 8 plies with 8 distinct positions in between, so the start position
// is seen for the fifth time (fivefold repetition, the game ends) at ply 32: a game takes at most 32 moves here.
export const CYCLE = ['g1f3', 'g8f6', 'b1c3', 'b8c6', 'f3g1', 'f6g8', 'c3b1', 'c6b8'];
export const PLIES_PER_GAME = 32;

export type Workload = 'getGame' | 'move' | 'moves' | 'create' | 'import' | 'export' | 'growth';
export const THROUGHPUT: Workload[] = ['getGame', 'move', 'moves', 'create', 'import', 'export'];
/** The games of a player's export in the `export` workload. */
export const EXPORT_GAMES = 100;

export const TITLES: Record<Workload, string> = {
  getGame: 'GET game (80 plies)',
  move: 'POST move',
  moves: 'GET moves (middlegame)',
  create: 'POST create',
  import: 'POST import/pgn (80 plies)',
  export: `GET a player's ${EXPORT_GAMES} games (PGN)`,
  growth: 'growth',
};

/** One round of load on one target, as the conductor sends it to the load process. */
export interface Job {
  url: string;
  workload: Workload;
  seconds: number;
  connections: number;
  gameId: string; // for getGame and moves
  gameIds: string[]; // for growth: the games to undo and redo in
  pgn: string; // for import
  exportPath: string; // for export: the path and query of a player's games
  games: number; // for move: fresh games to spread the moves over
  track: boolean; // for move: report the acknowledged moves per game
  pids: number[]; // the target's processes, whose CPU time the round measures
  proxyPid?: number; // the proxy in front of them, measured apart
  database?: string; // PostgreSQL: the target's database, whose server processes are measured apart
}

/** What a round measured, as the load process answers it. */
export interface RoundResult {
  rps: number; // 2xx and other answers per second
  p50: number; // ms
  p99: number;
  total: number;
  non2xx: number;
  errors: number; // connection errors and timeouts
  refused: Record<number, number>; // non-2xx answers by status
  acked?: Record<string, number>; // move: 2xx answers per game
  cpuUs: number; // CPU time of the target's processes per request, in µs
  window: [number, number]; // when the load ran, in µs of the monotonic clock (that of CPU profiles)
  proxyCpuUs?: number;
  databaseCpuUs?: number; // the PostgreSQL server processes serving the target's database
}

export interface AutocannonRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: AutocannonRequest, context: Record<string, unknown>) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
}

async function createGames(url: string, count: number): Promise<string[]> {
  return inParallel(count, 16, async () => {
    const res = await fetch(`${url}/api/board/game`, { method: 'POST' });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { gameId: string }).gameId;
  });
}

const growthSent = new Map<string, number>();

/**
 * The requests of a job's round; `acked` counts the 2xx answers per game of a tracked move round. The move workload
 * creates its games first.
 */
export async function requestsOf(job: Job, acked: Record<string, number>): Promise<AutocannonRequest[]> {
  const base = '/api/board/game';
  let requests: AutocannonRequest[];
  if (job.workload === 'move') {
    // Request k goes to game k mod G at ply k div G: the previous move of a game was sent G requests earlier,
    // long before (G is many times the number of connections), and one game's moves are applied in arrival order.
    const ids = await createGames(job.url, job.games);
    let k = 0;
    requests = [
      {
        method: 'POST',
        setupRequest: (request, context) => {
          const game = k % ids.length;
          const ply = Math.floor(k / ids.length) % PLIES_PER_GAME;
          k++;
          context.gameId = ids[game];
          return { ...request, path: `${base}/${ids[game]}/move/${CYCLE[ply % CYCLE.length]}` };
        },
        onResponse: (status, _body, context) => {
          if (job.track && status >= 200 && status < 300) {
            const id = context.gameId as string;
            acked[id] = (acked[id] ?? 0) + 1;
          }
        },
      },
    ];
  } else if (job.workload === 'growth') {
    // The games take turns, so a game's previous request was sent 32 requests earlier and has been answered
    // (with at most 32 connections); each game alternates undo and redo and stays within a ply of its length.
    const ids = job.gameIds;
    let k = 0;
    requests = [
      {
        method: 'POST',
        setupRequest: request => {
          const id = ids[k++ % ids.length]!;
          const sent = growthSent.get(id) ?? 0;
          growthSent.set(id, sent + 1);
          return { ...request, path: `${base}/${id}/${sent % 2 ? 'redo' : 'undo'}` };
        },
      },
    ];
  } else if (job.workload === 'getGame') requests = [{ method: 'GET', path: `${base}/${job.gameId}` }];
  else if (job.workload === 'moves') requests = [{ method: 'GET', path: `${base}/${job.gameId}/moves` }];
  else if (job.workload === 'create') requests = [{ method: 'POST', path: base }];
  else if (job.workload === 'export') requests = [{ method: 'GET', path: job.exportPath }];
  else {
    requests = [
      {
        method: 'POST',
        path: `${base}/import/pgn`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pgn: job.pgn }),
      },
    ];
  }
  return requests;
}
