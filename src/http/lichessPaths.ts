/**
 * The lichess dialect's game paths as lichess's clients write them (DECISIONS §16a). Under `/api/board/game/{id}/`
 * and `/api/bot/game/{id}/`:
 *
 * - a trailing slash is the same path (berserk posts `claim-victory/`);
 * - the word of `draw/{x}` and `takeback/{x}` is lichess's boolean: `yes`, `true` and `1` are `yes`; `no`, `false`
 *   and `0` are `no`.
 *
 * `lichessUrl` rewrites such a URL to the one path the router serves, before routing (Fastify's `rewriteUrl`), so
 * that every rule judged on the route (guards, schemas, the document) sees one path. Segments are compared decoded,
 * as the router matches them (`/api/%62ot/...` is `/api/bot/...`); what is not rewritten is kept as it was sent,
 * the query too.
 *
 * ```ts
 * lichessUrl('/api/bot/game/AbCd1234/claim-victory/'); // '/api/bot/game/AbCd1234/claim-victory'
 * lichessUrl('/api/board/game/AbCd1234/draw/1?x=y');   // '/api/board/game/AbCd1234/draw/yes?x=y'
 * ```
 */

export const YES_WORDS: readonly string[] = ['yes', 'true', '1'];
export const NO_WORDS: readonly string[] = ['no', 'false', '0'];

/** URLs worth reading: a path ending with a slash or one of the words, or holding an escape. */
const CANDIDATE = /(?:\/|\/true|\/false|\/1|\/0)$|%/;

const decoded = (segment: string): string => {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // undecodable: the router refuses it anyway
  }
};

/** The URL the router is to serve for `url` (`url` itself when it is not a lichess game path to rewrite). */
export function lichessUrl(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!CANDIDATE.test(path)) return url;
  const segments = path.split('/');
  // ['', 'api', 'board' | 'bot', 'game', id, ...]
  if (segments.length < 6 || segments[0] !== '' || decoded(segments[1]!) !== 'api') return url;
  const prefix = decoded(segments[2]!);
  if ((prefix !== 'board' && prefix !== 'bot') || decoded(segments[3]!) !== 'game' || segments[4] === '') return url;
  let changed = false;
  if (segments.at(-1) === '' && segments.at(-2) !== '') {
    segments.pop();
    changed = true;
  }
  const what = segments.length === 7 ? decoded(segments[5]!) : undefined;
  if (what === 'draw' || what === 'takeback') {
    const word = decoded(segments[6]!);
    const answer = YES_WORDS.includes(word) ? 'yes' : NO_WORDS.includes(word) ? 'no' : undefined;
    if (answer !== undefined && segments[6] !== answer) {
      segments[6] = answer;
      changed = true;
    }
  }
  return changed ? segments.join('/') + (query === -1 ? '' : url.slice(query)) : url;
}
