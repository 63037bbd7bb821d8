/**
 * The one HTTP client for the localhost API. It knows the base URL and the credential headers, and
 * turns every failure into a typed error; what the user sees is decided by the views.
 */

/** Platform routes (/uba/manage/enterprise/...) authenticate with the platform token. */
export interface PlatformAuth {
  apiBase: string
  xtoken: string
}

/** Project routes authenticate with one project's appKey and token. */
export interface ProjectAuth {
  apiBase: string
  appKey: string
  token: string
}

/** The server answered, but not with 200: its `{code, msg, data}` body, typed. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    readonly msg: string,
    /** For 400s, the offending parameters. */
    readonly data: unknown,
  ) {
    super(msg)
    this.name = 'ApiError'
  }
}

/** The server could not be reached at all (stopped, wrong address, timed out). */
export class NetworkError extends Error {
  constructor(
    readonly url: string,
    message: string,
  ) {
    super(message)
    this.name = 'NetworkError'
  }
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

const TIMEOUT_MS = 30_000

function authHeaders(auth: PlatformAuth | ProjectAuth): Record<string, string> {
  return 'xtoken' in auth ? { xtoken: auth.xtoken } : { appKey: auth.appKey, token: auth.token }
}

function isErrorBody(value: unknown): value is { code: number; msg: string; data?: unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { code?: unknown }).code === 'number' && typeof (value as { msg?: unknown }).msg === 'string'
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text()
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Calls the API with the given credentials; resolves to the 200 body, rejects with ApiError or NetworkError. */
export async function request<T>(auth: PlatformAuth | ProjectAuth, method: Method, path: string, body?: unknown): Promise<T> {
  const url = auth.apiBase.replace(/\/+$/, '') + path
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(auth) }
  // the server refuses writes whose body is not declared as JSON
  if (body !== undefined) headers['Content-Type'] = 'application/json'

  let response: Response
  let payload: unknown
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
      credentials: 'omit',
    })
    payload = await readJson(response)
  } catch (err) {
    const timedOut = err instanceof DOMException && err.name === 'TimeoutError'
    throw new NetworkError(url, timedOut ? 'The UBA Desk server did not answer in time.' : 'The UBA Desk server could not be reached.')
  }

  if (response.status === 200) return payload as T
  if (isErrorBody(payload)) throw new ApiError(response.status, payload.code, payload.msg, payload.data ?? null)
  throw new ApiError(response.status, response.status, response.statusText || `HTTP ${response.status}`, null)
}
