import { AppError } from '../errors'

// AppError and engineUnavailable live below the domain (the warehouse throws them too)
export { AppError, engineUnavailable } from '../errors'

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
