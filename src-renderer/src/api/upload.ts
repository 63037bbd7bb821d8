import { ApiError, NetworkError, type ProjectAuth } from './http'

/**
 * Multipart uploads for the import API. fetch cannot report upload progress, so this one path uses
 * XMLHttpRequest; failures become the same typed errors as every other call (see http.ts).
 */

export interface UploadProgress {
  loaded: number
  total: number
}

export interface UploadOptions {
  onProgress?: (progress: UploadProgress) => void
  signal?: AbortSignal
}

function errorOf(status: number, statusText: string, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { code?: unknown; msg?: unknown; data?: unknown }
    if (typeof body.code === 'number' && typeof body.msg === 'string') return new ApiError(status, body.code, body.msg, body.data ?? null)
  } catch {
    // not JSON: the status line is all there is
  }
  return new ApiError(status, status, statusText || `HTTP ${status}`, null)
}

/** POSTs a form (files and text fields) with the project credentials; resolves to the 200 body. */
export function postForm<T>(auth: ProjectAuth, path: string, form: FormData, options: UploadOptions = {}): Promise<T> {
  const url = auth.apiBase.replace(/\/+$/, '') + path
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', url)
    xhr.setRequestHeader('Accept', 'application/json')
    xhr.setRequestHeader('appKey', auth.appKey)
    xhr.setRequestHeader('token', auth.token)
    xhr.withCredentials = false
    if (options.onProgress) {
      const report = options.onProgress
      xhr.upload.onprogress = (e) => report({ loaded: e.loaded, total: e.lengthComputable ? e.total : 0 })
    }
    xhr.onload = () => {
      if (xhr.status === 200) {
        try {
          resolve(JSON.parse(xhr.responseText) as T)
        } catch {
          reject(new ApiError(200, 200, 'The server answered with something that is not JSON.', null))
        }
        return
      }
      reject(errorOf(xhr.status, xhr.statusText, xhr.responseText))
    }
    xhr.onerror = () => reject(new NetworkError(url, 'The UBA Desk server could not be reached.'))
    xhr.onabort = () => reject(new DOMException('The upload was stopped.', 'AbortError'))
    if (options.signal) {
      if (options.signal.aborted) {
        reject(new DOMException('The upload was stopped.', 'AbortError'))
        return
      }
      options.signal.addEventListener('abort', () => xhr.abort(), { once: true })
    }
    xhr.send(form)
  })
}
