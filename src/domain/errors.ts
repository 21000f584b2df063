/**
 * The domain's errors: a code of the API's closed table (`contract/vocabulary.ts`, with its HTTP status), a
 * message for people and the request field at fault; `http/errors.ts` is the only place that answers them.
 *
 * ```ts
 * return err(new DomainError('NO_UNDO', 'there is no move to undo'));
 * ```
 */
import { ERROR_STATUS, type ErrorCode } from '../contract/vocabulary.ts';
import type { ApiErrorBody } from '../contract/shapes.ts';

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string) {
    // A refusal (4xx) is an answer, not a fault: its stack would never be read, and capturing one costs more than
    // judging the move it refuses (a client sending bad moves in a loop). A 5xx keeps its stack for the log.
    const limit = Error.stackTraceLimit;
    if (ERROR_STATUS[code] < 500) Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = 'DomainError';
    this.code = code;
    this.field = field;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  toBody(): ApiErrorBody {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}

export type Result<T, E = DomainError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });

/** The value of a success; a failure's error is thrown (the service's way of answering a refusal). */
export const orThrow = <T>(result: Result<T>): T => {
  if (!result.ok) throw result.error;
  return result.value;
};
