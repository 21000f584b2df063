/**
 * A longer soak of the guard rails than CI runs: the fuzz tests of test/guard/fuzz.test.ts round after round,
 * each round with a new seed, and optionally the crash test with more kills. Stops at the first failure and
 * prints how to replay it.
 *
 * ```sh
 * npm run soak                                   # rounds of 10,000 runs per property until stopped (Ctrl-C)
 * npm run soak -- --runs 50000 --rounds 3        # three rounds of 50,000 runs per property
 * npm run soak -- --minutes 30 --crash-kills 50  # 30 minutes, with a 50-kill crash test in every round
 * ```
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10000' }, // runs per property and round
    rounds: { type: 'string' }, // how many rounds; no limit by default
    minutes: { type: 'string' }, // stop starting rounds after this long
    seed: { type: 'string' }, // the first round's seed (then seed + 1, ...)
    'crash-kills': { type: 'string', default: '0' }, // SIGKILLs of the crash test per round; 0 = no crash test
  },
});

const positive = (name: string, text: string | undefined): number | undefined => {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text)) throw new Error(`--${name} must be a whole number; got '${text}'`);
  return Number(text);
};
const runs = positive('runs', values.runs)!;
const rounds = positive('rounds', values.rounds) ?? Infinity;
const deadline = Date.now() + (positive('minutes', values.minutes) ?? Infinity) * 60_000;
const kills = positive('crash-kills', values['crash-kills'])!;
let seed = positive('seed', values.seed) ?? randomInt(1, 2 ** 31 - 1);

/** Runs one test file; resolves with its exit code and the last fuzz summary line it printed. */
function runTest(file: string, env: Record<string, string>): Promise<{ code: number; summary?: string }> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', file], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let summary: string | undefined;
    let pending = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      process.stdout.write(chunk);
      const lines = (pending + chunk).split('\n');
      pending = lines.pop()!;
      for (const line of lines)
        if (/^[#\s\\]*fuzz: \d+ generated cases/.test(line)) summary = line.replace(/^[#\s\\]+/, '');
    });
    child.on('close', code => resolve({ code: code ?? 1, ...(summary ? { summary } : {}) }));
  });
}

let totalCases = 0;
const started = Date.now();
for (let round = 1; round <= rounds && Date.now() < deadline; round++, seed++) {
  process.stdout.write(`\n=== soak round ${round}: FUZZ_RUNS=${runs} FUZZ_SEED=${seed} ===\n`);
  const fuzz = await runTest('test/guard/fuzz.test.ts', { FUZZ_RUNS: String(runs), FUZZ_SEED: String(seed) });
  if (fuzz.code !== 0) {
    process.stdout.write(
      `\nsoak FAILED in round ${round}; replay with:\n  FUZZ_RUNS=${runs} FUZZ_SEED=${seed} node --import tsx --test test/guard/fuzz.test.ts\n`,
    );
    process.exit(1);
  }
  totalCases += Number(/(\d+) generated cases/.exec(fuzz.summary ?? '')?.[1] ?? 0);
  if (kills > 0) {
    const crash = await runTest('test/guard/crash.test.ts', { CRASH_KILLS: String(kills), CRASH_SEED: String(seed) });
    if (crash.code !== 0) {
      process.stdout.write(
        `\nsoak FAILED in round ${round} (crash test); replay with:\n  CRASH_KILLS=${kills} CRASH_SEED=${seed} node --import tsx --test test/guard/crash.test.ts\n`,
      );
      process.exit(1);
    }
  }
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  process.stdout.write(`=== soak: ${round} round(s), ${totalCases} fuzz cases, ${minutes} min, no failure ===\n`);
}
