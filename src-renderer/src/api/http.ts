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

export interface RequestOptions {
  /** Stops the request; the call then rejects with the signal's reason (an AbortError), not a NetworkError. */
  signal?: AbortSignal
}

function errorOf(response: Response, payload: unknown): ApiError {
  if (isErrorBody(payload)) return new ApiError(response.status, payload.code, payload.msg, payload.data ?? null)
  return new ApiError(response.status, response.status, response.statusText || `HTTP ${response.status}`, null)
}

/** Sends the request and reads the answer with `read`; a failure to connect or read is a NetworkError. */
async function send<R>(
  auth: PlatformAuth | ProjectAuth,
  method: Method,
  path: string,
  body: unknown,
  signal: AbortSignal | undefined,
  read: (response: Response) => Promise<R>,
): Promise<{ response: Response; value: R }> {
  const url = auth.apiBase.replace(/\/+$/, '') + path
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders(auth) }
  // the server refuses writes whose body is not declared as JSON
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  try {
    const response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      credentials: 'omit',
    })
    return { response, value: await read(response) }
  } catch (err) {
    const timedOut = err instanceof DOMException && err.name === 'TimeoutError'
    if (signal?.aborted && !timedOut) throw signal.reason
    throw new NetworkError(url, timedOut ? 'The UBA Desk server did not answer in time.' : 'The UBA Desk server could not be reached.')
  }
}

/** Calls the API with the given credentials; resolves to the 200 body, rejects with ApiError or NetworkError. */
export async function request<T>(auth: PlatformAuth | ProjectAuth, method: Method, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  const timeout = AbortSignal.timeout(TIMEOUT_MS)
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout
  const { response, value: payload } = await send(auth, method, path, body, signal, readJson)
  if (response.status === 200) return payload as T
  throw errorOf(response, payload)
}

/**
 * Calls an endpoint that answers with a stream (the exports): resolves to the 200 response with its
 * body unread, for the caller to read as it arrives. No time-out, since an export may run for
 * minutes: the caller's signal stops it. Failures are the same typed errors as request()'s.
 */
export async function requestStream(auth: PlatformAuth | ProjectAuth, method: Method, path: string, body?: unknown, options: RequestOptions = {}): Promise<Response> {
  const { response } = await send(auth, method, path, body, options.signal, async () => undefined)
  if (response.status === 200) return response
  let payload: unknown
  try {
    payload = await readJson(response)
  } catch {
    payload = undefined
  }
  throw errorOf(response, payload)
}

/** How much of a streamed body has arrived. */
export interface StreamProgress {
  bytes: number
  /** Newline characters seen: the number of rows of JSON lines, rows plus header of CSV. */
  lines: number
}

/**
 * Reads a streamed body (from requestStream) to the end, reporting progress per chunk; resolves to
 * the whole body as a Blob of the response's type. A connection lost midway is a NetworkError.
 */
export async function readStream(response: Response, onProgress: (progress: StreamProgress) => void, signal?: AbortSignal): Promise<Blob> {
  const chunks: Uint8Array<ArrayBuffer>[] = []
  const progress: StreamProgress = { bytes: 0, lines: 0 }
  if (!response.body) return new Blob([], { type: response.headers.get('Content-Type') ?? '' })
  const reader = response.body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      progress.bytes += value.byteLength
      for (let i = value.indexOf(10); i !== -1; i = value.indexOf(10, i + 1)) progress.lines++
      onProgress({ ...progress })
    }
  } catch {
    if (signal?.aborted) throw signal.reason
    throw new NetworkError(response.url, 'The connection to the UBA Desk server was lost during the download.')
  }
  return new Blob(chunks, { type: response.headers.get('Content-Type') ?? '' })
}
