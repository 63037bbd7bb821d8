import http from 'node:http'
import net from 'node:net'

export interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: any
}

/**
 * A request with exactly the headers given (fetch will not let a test set Host, or leave out
 * Content-Type), as a hostile or sloppy client would send it.
 */
export function rawRequest(port: number, method: string, path: string, headers: Record<string, string>, body?: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (text += d))
      res.on('end', () => {
        let parsed: unknown = text
        try {
          parsed = JSON.parse(text)
        } catch {
          // keep the text
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed })
      })
    })
    req.on('error', reject)
    if (body !== undefined) {
      req.setHeader('content-length', Buffer.byteLength(body))
      req.write(body)
    }
    req.end()
  })
}

/** Bytes straight onto a socket: for requests no HTTP client would send. */
export function rawSocket(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(bytes))
    let text = ''
    socket.on('data', (d) => (text += d.toString('utf8')))
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}
