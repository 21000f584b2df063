/**
 * Where a request's CPU goes, by layer of the service, from the CPU profiles the request benchmark writes
 * (`PROFILE_DIR=... npm run bench`, also with `--against REF`). Each sample of the profile is given to the innermost
 * frame of its stack that belongs to a layer: a frame of the service's own sources (found through the bundle's
 * source map), of a package (Fastify, better-sqlite3, chessops, pino...) or of Node's HTTP and sockets. A native
 * function (a SQLite statement's `run`, `JSON.stringify`) counts for the layer that called it.
 *
 * Only the samples taken while the rounds of one workload ran are counted (the benchmark writes each round's
 * window, on the monotonic clock the profiles use, in `rounds-PID.json` beside the profile), and they are divided
 * by the requests those rounds answered: µs of the main thread per request. Warm-up rounds are left out.
 *
 * ```sh
 * PROFILE_DIR=/tmp/p QUICK=1 WORKLOADS=move BARE=0 npm run bench:ab -- REF --store sqlite
 * node --import tsx bench/layers.ts /tmp/p/this /tmp/p/REF          # POST move, side by side
 * WORKLOAD=getGame TOP=20 node --import tsx bench/layers.ts /tmp/p/this
 * ```
 */
import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number; // 0-based
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number; // µs, monotonic
  samples: number[];
  timeDeltas: number[];
}
interface Rounds {
  target: string;
  rounds: { workload: string; warmup: boolean; window: [number, number]; total: number }[];
}

/** The layers, in the order of a request's path through the service. */
export const LAYERS = [
  'HTTP: Node (sockets, parser, writes)',
  'HTTP: Fastify (routing, hooks, validation, reply)',
  'HTTP: guards, auth and metrics hooks',
  'HTTP: routes and the game lookup',
  'seats (who may act)',
  'domain: the transition (chess, line, status)',
  'clock',
  'serialization: views, state and event JSON',
  'service: cache, queue, commit',
  'store: statements (games row, indexes, moves row)',
  "store: the listing's seq",
  'store: transaction begin and commit (WAL, sync)',
  'store: change log (in memory)',
  'events: change feed and streams',
  'events: player events',
  'logging',
  'garbage collector',
  'other (runtime, promises, timers)',
] as const;
type Layer = (typeof LAYERS)[number];

/** The layer of a source file of the service (src/...), given the function's name where a file holds several. */
function layerOfSource(file: string, name: string, line: string): Layer | undefined {
  if (file.startsWith('src/http/routes/stream') || file === 'src/http/stream.ts')
    return 'events: change feed and streams';
  if (/^src\/http\/(app|guards|auth|redact|errors|metrics)\.ts$/.test(file) || file === 'src/service/tokens.ts')
    return 'HTTP: guards, auth and metrics hooks';
  if (file.startsWith('src/http/')) return 'HTTP: routes and the game lookup';
  if (file === 'src/domain/seats.ts') return 'seats (who may act)';
  if (file === 'src/domain/clock.ts' || file === 'src/service/clocks.ts') return 'clock';
  if (file === 'src/domain/views.ts' || file.startsWith('src/contract/'))
    return 'serialization: views, state and event JSON';
  if (file.startsWith('src/domain/')) return 'domain: the transition (chess, line, status)';
  if (file.startsWith('src/service/')) return 'service: cache, queue, commit';
  if (file === 'src/store/recentChanges.ts') return 'store: change log (in memory)';
  if (file.startsWith('src/store/')) {
    // The transactions' closures read the highest seq before their writes (sqlite/connection.ts, attach).
    if (/maxSeq|db\.transaction\(/.test(line) || /maxSeq/.test(name)) return "store: the listing's seq";
    return 'store: statements (games row, indexes, moves row)';
  }
  if (file === 'src/bus/players.ts') return 'events: player events';
  if (file.startsWith('src/bus/')) return 'events: change feed and streams';
  return undefined;
}

/** The layer of a frame outside the service's sources, by its URL; undefined for native and unknown frames. */
function layerOfPackage(frame: CallFrame): Layer | undefined {
  const { url, functionName } = frame;
  if (functionName === '(garbage collector)') return 'garbage collector';
  if (url === '') return undefined;
  if (url.includes('/better-sqlite3/')) return 'store: transaction begin and commit (WAL, sync)';
  if (url.includes('/chessops/')) return 'domain: the transition (chess, line, status)';
  if (/\/(pino|pino-std-serializers|thread-stream|sonic-boom)\//.test(url)) return 'logging';
  if (/\/(fastify|@fastify|find-my-way|avvio|fast-json-stringify|light-my-request|toad-cache|ajv|typebox)\//.test(url))
    return 'HTTP: Fastify (routing, hooks, validation, reply)';
  if (/^node:(_http|http|net|stream|internal\/(http|streams|stream_base|net|child_process|js_stream))/.test(url))
    return 'HTTP: Node (sockets, parser, writes)';
  return undefined;
}

const maps = new Map<string, SourceMap | null>();
function sourceMapOf(url: string): SourceMap | null {
  let map = maps.get(url);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(url, map);
  }
  return map;
}

/**
 * The service's source file of a frame of its bundle (relative, from src/), the function's name, the line it
 * starts on (1-based) and that line's text.
 */
function sourceOf(frame: CallFrame): { file: string; name: string; lineNumber: number; line: string } | undefined {
  if (!frame.url.endsWith('/dist/server.mjs')) return undefined;
  const map = sourceMapOf(frame.url);
  const entry = map?.findEntry(frame.lineNumber, frame.columnNumber);
  if (!map || !entry || !('originalSource' in entry)) return undefined;
  const at = entry.originalSource.lastIndexOf('src/');
  if (at < 0) return undefined;
  // The payload's type says sourcesContent is always there; a map written without it has none.
  const { sources, sourcesContent } = map.payload as { sources: string[]; sourcesContent?: (string | null)[] };
  const text = sourcesContent?.[sources.indexOf(entry.originalSource)]?.split('\n')[entry.originalLine] ?? '';
  return {
    file: entry.originalSource.slice(at),
    name: frame.functionName || '(anonymous)',
    lineNumber: entry.originalLine + 1,
    line: text,
  };
}

export interface Breakdown {
  target: string;
  requests: number;
  busyUs: number; // sampled time of the windows, idle excluded
  layers: Map<Layer, number>; // µs in the windows
  functions: Map<string, number>; // 'layer | file:function' -> µs
}

/** The breakdown of the profile in `dir` (one .cpuprofile with its rounds file) for `workload`. */
export function breakdown(dir: string, workload: string): Breakdown {
  const profiles = readdirSync(dir).filter(name => name.endsWith('.cpuprofile'));
  if (profiles.length !== 1) throw new Error(`${dir}: expected one .cpuprofile, found ${profiles.length}`);
  const file = profiles[0]!;
  const pid = /\.(\d+)\.\d+\.\d+\.cpuprofile$/.exec(file)?.[1];
  const rounds = JSON.parse(readFileSync(join(dir, `rounds-${pid}.json`), 'utf8')) as Rounds;
  const windows = rounds.rounds.filter(r => r.workload === workload && !r.warmup);
  if (windows.length === 0) throw new Error(`${dir}: no rounds of ${workload}`);
  const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;

  const parent = new Map<number, ProfileNode>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node);
  }
  // Each node's layer and the function it is counted for, found once.
  const owner = new Map<number, { layer: Layer; fn: string } | null>();
  const ownerOf = (id: number): { layer: Layer; fn: string } | null => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const leaf = byId.get(id)!.callFrame;
    if (leaf.functionName === '(idle)') {
      owner.set(id, null);
      return null;
    }
    let found: { layer: Layer; fn: string } | undefined;
    for (let node: ProfileNode | undefined = byId.get(id); node && !found; node = parent.get(node.id)) {
      const frame = node.callFrame;
      const source = sourceOf(frame);
      const layer = source ? layerOfSource(source.file, source.name, source.line) : layerOfPackage(frame);
      if (layer) {
        const where = source
          ? `${source.file}:${source.lineNumber} ${source.name}`
          : `${basename(frame.url)}:${frame.functionName}`;
        found = { layer, fn: `${where}${leaf === frame ? '' : ` > ${leaf.functionName || '(anonymous)'}`}` };
      }
    }
    const result = found ?? { layer: 'other (runtime, promises, timers)', fn: leaf.functionName || '(anonymous)' };
    owner.set(id, result);
    return result;
  };

  const layers = new Map<Layer, number>();
  const functions = new Map<string, number>();
  let busyUs = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    const delta = profile.timeDeltas[i + 1] ?? 0; // the time until the next sample is this one's
    if (!windows.some(({ window: [from, to] }) => t >= from && t < to)) continue;
    const found = ownerOf(profile.samples[i]!);
    if (!found) continue;
    busyUs += delta;
    layers.set(found.layer, (layers.get(found.layer) ?? 0) + delta);
    const key = `${found.layer} | ${found.fn}`;
    functions.set(key, (functions.get(key) ?? 0) + delta);
  }
  const requests = windows.reduce((sum, r) => sum + r.total, 0);
  return { target: rounds.target, requests, busyUs, layers, functions };
}

function main(): void {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) throw new Error('usage: bench/layers.ts PROFILE_FOLDER [PROFILE_FOLDER...]');
  const workload = process.env.WORKLOAD ?? 'move';
  const top = Number(process.env.TOP ?? 12);
  const all = dirs.map(dir => breakdown(dir, workload));
  const perRequest = (b: Breakdown, us: number) => us / b.requests;
  const cells = (b: Breakdown, us: number) =>
    `${perRequest(b, us).toFixed(1)} µs (${((100 * us) / b.busyUs).toFixed(1)} %)`;
  const header = ['Layer', ...all.map(b => `${b.target}: µs per request (% of main thread)`)];
  const lines = [
    `Main thread's CPU per ${workload} request, from the profile's samples during the measured rounds ` +
      `(${all.map(b => `${b.target}: ${b.requests} requests`).join('; ')}).`,
    '',
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
  ];
  for (const layer of LAYERS) {
    if (all.every(b => !b.layers.has(layer))) continue;
    lines.push(`| ${layer} | ${all.map(b => cells(b, b.layers.get(layer) ?? 0)).join(' | ')} |`);
  }
  lines.push(`| **total** | ${all.map(b => `**${perRequest(b, b.busyUs).toFixed(1)} µs**`).join(' | ')} |`);
  for (const b of all) {
    lines.push('', `Top functions, ${b.target}:`, '');
    const sorted = [...b.functions].sort((x, y) => y[1] - x[1]).slice(0, top);
    for (const [key, us] of sorted) lines.push(`- ${perRequest(b, us).toFixed(1)} µs  ${key}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
