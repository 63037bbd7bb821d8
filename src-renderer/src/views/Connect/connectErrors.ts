import { ApiError, NetworkError } from '../../api/http'

/** What to tell the user when an xtoken could not be used. */
export function describeConnectError(err: unknown, server: string): { title: string; message: string } {
  if (err instanceof ApiError && err.status === 401) {
    return { title: 'That xtoken was refused', message: `Check that you copied all of it, and that it belongs to the server at ${server}.` }
  }
  if (err instanceof NetworkError) {
    return { title: 'The server could not be reached', message: `Nothing answered at ${server}. Is the UBA Desk server still running?` }
  }
  if (err instanceof ApiError) return { title: 'The server refused the request', message: err.msg }
  return { title: 'Something went wrong', message: err instanceof Error ? err.message : String(err) }
}
