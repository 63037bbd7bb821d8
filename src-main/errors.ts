/**
 * The one error type of the product. Domain code throws it with the spec's HTTP status and code
 * (part 7); the transport turns it into `{code, msg, data}`. `msg` is shown to callers, so it never
 * carries internals. It lives below the domain so that the warehouse can throw it too.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/** 503: the query engine or a database cannot be reached. */
export function engineUnavailable(message = 'the query engine is unavailable'): AppError {
  return new AppError(503, 503, message)
}
