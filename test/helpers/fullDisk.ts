/**
 * A folder whose disk can be filled up and freed again, for the tests of a full disk (DECISIONS §15):
 *
 * - `tmpfs`: a real filesystem of a few MiB mounted for the test (as root, which CI is), filled with a file of
 *   zeros until the kernel answers ENOSPC;
 * - `max_page_count`: where nothing can be mounted, SQLite's own limit on the store's connection, set to the pages
 *   the file has, so that SQLite itself fails the next write with SQLITE_FULL, along the same code path.
 *
 * Each test says which one ran (`t.diagnostic`); TEST_FULL_DISK=max_page_count chooses the second anyway.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Database from 'better-sqlite3';

export interface FullDisk {
  kind: 'tmpfs' | 'max_page_count';
  dir: string;
  /** Fills the disk (tmpfs) or caps the store's file at its size now (max_page_count). */
  fill(store?: unknown): void;
  /** Frees the space again. */
  free(store?: unknown): void;
  /** Unmounts and removes the folder. */
  cleanup(): void;
}

const connectionOf = (store: unknown): Database.Database => (store as { db: Database.Database }).db;

export function fullDisk(sizeMiB = 8): FullDisk {
  const dir = mkdtempSync(join(tmpdir(), 'chess-full-disk-'));
  const mounted =
    process.env.TEST_FULL_DISK !== 'max_page_count' &&
    process.getuid?.() === 0 &&
    spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
  const filler = join(dir, 'filler');
  if (mounted) {
    return {
      kind: 'tmpfs',
      dir,
      fill() {
        const fd = openSync(filler, 'a');
        const block = Buffer.alloc(64 * 1024);
        try {
          for (;;) writeSync(fd, block);
        } catch (error) {
          if ((error as { code?: string }).code !== 'ENOSPC') throw error;
        } finally {
          closeSync(fd);
        }
        // The last partial blocks too: nothing at all is left.
        const small = openSync(filler, 'a');
        try {
          for (;;) writeSync(small, Buffer.alloc(512));
        } catch {
          // full
        } finally {
          closeSync(small);
        }
      },
      free() {
        rmSync(filler, { force: true });
      },
      cleanup() {
        spawnSync('umount', ['-l', dir], { stdio: 'ignore' });
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  return {
    kind: 'max_page_count',
    dir,
    fill(store) {
      const db = connectionOf(store);
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
    },
    free(store) {
      connectionOf(store).pragma('max_page_count = 1073741823');
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
