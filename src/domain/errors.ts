/**
 * The closed table of error codes. Each code carries its HTTP status here so that the table is the single
 * source for codes; `http/errors.ts` is the only place that turns them into responses.
 *
 * ```ts
 * return err(new DomainError('NO_UNDO', 'there is no move to undo'));
 * ```
 */
export const ERROR_STATUS = {
  INVALID_BODY: 400,
  INVALID_GAME_ID: 400,
  GAME_NOT_FOUND: 404,
  INVALID_UCI: 400,
  INVALID_MOVE: 400,
  INVALID_SQUARE: 400,
  INVALID_ACTION: 400,
  INVALID_FEN: 400,
  INVALID_PGN: 400,
  GAME_OVER: 400,
  NO_UNDO: 400,
  NO_REDO: 400,
  NO_DRAW_OFFER: 400,
  DRAW_ALREADY_OFFERED: 400,
  CLAIM_NOT_AVAILABLE: 400,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** The API error body: `{ code, message, field? }`. */
export interface ApiErrorBody {
  code: ErrorCode;
  message: string;
  field?: string | null;
}

export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;

  constructor(code: ErrorCode, message: string, field?: string) {
    super(message);
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
