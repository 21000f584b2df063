/**
 * Files the service reads at run time, found from the project's root. This module is one folder below the root
 * (src/paths.ts), and so is the bundle that `npm start` runs (dist/server.mjs, which contains this module), so
 * both find the same root.
 *
 * ```ts
 * readdirSync(join(SQL_ROOT, 'sqlite')); // the SQLite migrations
 * ```
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The built board page (`npm run build`). */
export const WEB_ROOT = join(ROOT, 'dist', 'web');
/** The schema migrations, one folder per store. */
export const SQL_ROOT = join(ROOT, 'src', 'store', 'sql');
