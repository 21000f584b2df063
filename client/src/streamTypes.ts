/**
 * The NDJSON operations (the streams), found in the generated paths by their 200 answer's media type: which paths
 * are streams, with which method, and what each sends and takes. Types only, from ./schema.ts; the client
 * (./index.ts) exports them, and the generated table of methods (./streams.ts) is checked against them, so both
 * import them from here.
 */
import type { FetchOptions } from 'openapi-fetch';
import type { paths } from './schema.ts';

const NDJSON = 'application/x-ndjson';
/** The methods a stream is opened with: GET, and POST for a real-time seek. */
export type StreamMethod = 'get' | 'post';

/** Whether an operation answers 200 with NDJSON. */
type IsStreamOperation<Operation> = Operation extends {
  responses: { 200: { content: { [NDJSON]: unknown } } };
}
  ? true
  : false;

/** The method of a path whose operation answers NDJSON (never: none). */
export type StreamMethodOf<Path extends keyof paths> = {
  [Method in StreamMethod]: IsStreamOperation<paths[Path][Method]> extends true ? Method : never;
}[StreamMethod];

/** The paths whose operations answer NDJSON: the streams. */
export type StreamPath = {
  [Path in keyof paths]: [StreamMethodOf<Path>] extends [never] ? never : Path;
}[keyof paths];

/** The operation of a stream path. */
export type StreamOperation<Path extends StreamPath> = paths[Path][StreamMethodOf<Path>];

/** One event (one NDJSON line) of a stream: its operation's `application/x-ndjson` schema. */
export type StreamEvent<Path extends StreamPath> =
  StreamOperation<Path> extends { responses: { 200: { content: { [NDJSON]: infer Event } } } } ? Event : never;

/** What a stream request takes: its path and query parameters, its body (the seek), headers and an AbortSignal. */
export type StreamInit<Path extends StreamPath> = Omit<FetchOptions<StreamOperation<Path>>, 'parseAs'>;

/** The init argument of `stream`: optional when the operation needs no parameter and no body. */
export type StreamInitArgument<Path extends StreamPath> =
  Partial<StreamInit<Path>> extends StreamInit<Path> ? [init?: StreamInit<Path>] : [init: StreamInit<Path>];
