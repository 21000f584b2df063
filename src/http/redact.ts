/**
 * What of a request's URL may be logged (DECISIONS §15: tokens never appear in logs, also when a client sends
 * one in a query string, where clients of other services often put it). The service reads no credential from a
 * query, so only its own query parameters are logged as sent; any other value is `[redacted]`, whatever its
 * name, and a parameter whose name does not look like one is redacted whole.
 *
 * ```ts
 * redactQuery('/api/board/game/AbCd1234/moves?square=e2&token=s3cret', new Set(['square']));
 * // '/api/board/game/AbCd1234/moves?square=e2&token=[redacted]'
 * ```
 */
const REDACTED = '[redacted]';
const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;

export function redactQuery(url: string, keep: ReadonlySet<string>): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const pairs = url
    .slice(at + 1)
    .split('&')
    .map(pair => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair === '' ? pair : REDACTED;
      const name = pair.slice(0, equals);
      if (!PARAMETER_NAME.test(name)) return REDACTED;
      return keep.has(name) ? pair : `${name}=${REDACTED}`;
    });
  return `${url.slice(0, at)}?${pairs.join('&')}`;
}
