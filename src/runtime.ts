/**
 * The Node.js versions the service runs on: package.json `engines.node`, the one place they are written. The server
 * checks its own version before anything else, since an unsupported Node.js crashes in the SQLite driver instead of
 * saying why. (`npm start` never gets there: scripts/runtime.mjs runs a supported Node.js by itself.)
 *
 * ```ts
 * const why = unsupportedNode(process.versions.node); // undefined on Node.js 24
 * ```
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { ROOT } from './paths.ts';

export const SUPPORTED_NODE = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;

/** Why this Node.js cannot run the service, in one line, or undefined when it can. */
export function unsupportedNode(version: string): string | undefined {
  if (semver.satisfies(version, SUPPORTED_NODE)) return undefined;
  return `this service needs Node.js ${SUPPORTED_NODE}; this is Node.js ${version} (npm start picks a supported one by itself)`;
}
