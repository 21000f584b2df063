/**
 * The checkpoint thread of a SQLite store (see connection.ts): a worker with a connection of its own that copies
 * committed pages from the WAL into the database file when asked, so that commits rarely wait for a checkpoint.
 *
 * ```ts
 * const checkpoints = new Checkpointer(path, () => fallBackToSqlitesOwnCheckpoints());
 * checkpoints.request(); // a passive checkpoint, soon
 * await checkpoints.close();
 * ```
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * What one checkpoint of the thread did, as SQLite reports it: the frames in the WAL (`log`) and how many of them are
 * now in the database file (`checkpointed`); `busy` when it could not run to the end (a lock held elsewhere). Once a
 * checkpoint with every frame copied is reported and nothing was written since, the database file stands still.
 */
export interface CheckpointDone {
  busy: boolean;
  log: number;
  checkpointed: number;
}

/**
 * The checkpoint thread of a database file. Its code is plain JavaScript that needs nothing but better-sqlite3,
 * so the thread starts in a few tens of milliseconds; it keeps no event loop alive on its own.
 */
export class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private stopped = false;
  private closing = false;

  /**
   * `onLost`: the thread stopped without being asked to (it could not open the file, or it crashed); `onDone`: each
   * checkpoint it ran, once it has returned (for tests and tools).
   */
  constructor(path: string, onLost: () => void, onDone?: (done: CheckpointDone) => void) {
    const workerData = { path, sqlite: require.resolve('better-sqlite3') };
    // execArgv: none of this process's flags (such as a TypeScript loader): the thread runs plain JavaScript.
    this.worker = new Worker(CHECKPOINT_THREAD, { eval: true, workerData, execArgv: [] });
    this.worker.unref();
    // A checkpoint that fails (a busy or full disk) is tried again at the next request.
    this.worker.on('error', () => undefined);
    if (onDone) this.worker.on('message', (done: CheckpointDone) => onDone(done));
    this.exited = new Promise(resolve =>
      this.worker.once('exit', () => {
        this.stopped = true;
        if (!this.closing) onLost();
        resolve();
      }),
    );
  }

  /** Asks for a passive checkpoint; the thread runs the requests one after the other. */
  request(): void {
    if (!this.stopped) this.worker.postMessage('checkpoint');
  }

  /** Resolves once the thread has closed its connection and ended, whether or not it ever started. */
  close(): Promise<void> {
    this.closing = true;
    if (!this.stopped) {
      this.worker.ref(); // until it has closed its connection
      this.worker.postMessage('close');
    }
    return this.exited;
  }
}

const require = createRequire(import.meta.url);

const CHECKPOINT_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
// Never creates the file: one removed before this thread opened it is the store's to write again (connection.ts).
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = FULL');
parentPort.on('message', message => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ busy: result.busy !== 0, log: result.log, checkpointed: result.checkpointed });
  } catch {
    // tried again at the next request
  }
});
`;
