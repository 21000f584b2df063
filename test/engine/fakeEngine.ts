/**
 * A fake UCI engine with a behaviour of the test's choosing (fakeEngine.mjs): its path, to give the pool as
 * `enginePath`, and what its processes read.
 *
 * ```ts
 * const fake = fakeEngine({ crashOn: [1] }); // the first search exits mid-search
 * const pool = createEnginePool({ enginePath: fake.path });
 * fake.commands(); // [{ pid: 1234, line: 'uci' }, ...]
 * ```
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface FakeBehaviour {
  name?: string;
  skill?: [number, number] | null; // the Skill Level option's range; null: no such option
  multipv?: number | null; // the MultiPV option's maximum; null: no such option
  startDelayMs?: number; // before `uciok`
  startHang?: boolean; // never `uciok`
  exitAtStart?: boolean; // exits with code 1 on `uci`
  searchMs?: number; // a search's length, at most its `go movetime`; `stop` ends it at once
  crashOn?: number[]; // searches (counted from 1 over all the fake's processes) that exit with code 3 midway
  hangOn?: number[]; // searches that never answer, not even to `stop`
  illegalOn?: number[]; // searches answered with an illegal move
  ignoreQuit?: boolean; // `quit` and the end of stdin do not end it
}

export interface FakeEngine {
  readonly path: string;
  commands(): { pid: number; line: string }[];
  remove(): void;
}

export function fakeEngine(behaviour: FakeBehaviour = {}): FakeEngine {
  const state = mkdtempSync(join(tmpdir(), 'fake-engine-'));
  const path = join(state, 'engine.mjs');
  const module = pathToFileURL(join(import.meta.dirname, 'fakeEngine.mjs')).href;
  writeFileSync(
    path,
    `import { runFakeEngine } from ${JSON.stringify(module)};\n` +
      `runFakeEngine(${JSON.stringify({ ...behaviour, state })});\n`,
  );
  return {
    path,
    commands: () => {
      let text = '';
      try {
        text = readFileSync(join(state, 'commands.log'), 'utf8');
      } catch {
        // nothing read yet
      }
      return text
        .split('\n')
        .filter(Boolean)
        .map(entry => {
          const space = entry.indexOf(' ');
          return { pid: Number(entry.slice(0, space)), line: entry.slice(space + 1) };
        });
    },
    remove: () => rmSync(state, { recursive: true, force: true }),
  };
}
