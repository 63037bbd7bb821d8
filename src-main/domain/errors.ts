/**
 * The one error type of the product. Domain code throws it with the spec's HTTP status and code
 * (part 7); the transport turns it into `{code, msg, data}`. `msg` is shown to callers, so it never
 * carries internals.
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

/** 400: a parameter is missing, wrong, or names an object that does not exist. */
export function badParam(params: string | string[], message: string): AppError {
  return new AppError(400, 400, message, Array.isArray(params) ? params : [params])
}

/** 501/501: a business quota (projects, cohorts) is reached. */
export function quotaReached(message: string): AppError {
  return new AppError(501, 501, message)
}

/** 501/50101: the object already exists. */
export function alreadyExists(message: string): AppError {
  return new AppError(501, 50101, message)
}

/** 501/50102: the object exists but is disabled. */
export function existsButDisabled(message: string): AppError {
  return new AppError(501, 50102, message)
}

/** 503: the query engine or a database cannot be reached. */
export function engineUnavailable(message = 'the query engine is unavailable'): AppError {
  return new AppError(503, 503, message)
}
