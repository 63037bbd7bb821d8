import { createServer, connect, type Socket } from 'node:net'

/**
 * A TCP proxy in front of a ClickHouse server that can stop answering in the middle of a request,
 * as a server that crashes or a network that drops does:
 * - `pass`: every byte goes through both ways;
 * - `drop-request`: the request reaches the server, and the connection is closed when it answers, nothing sent back;
 * - `cut-answer`: the answer's HTTP head goes back, then the connection is closed before its body ends.
 * The mode is read when a connection sends its next bytes, so a pooled keep-alive connection is cut too.
 */
export type CutMode = 'pass' | 'drop-request' | 'cut-answer'

export interface CutProxy {
  /** http://127.0.0.1:PORT */
  url: string
  mode: CutMode
  /** Connections closed by the proxy while a request was under way. */
  cuts: number
  stop(): Promise<void>
}

export async function startCutProxy(target: string): Promise<CutProxy> {
  const { hostname, port } = new URL(target)
  const sockets = new Set<Socket>()
  const proxy: CutProxy = { url: '', mode: 'pass', cuts: 0, stop: async () => undefined }
  const cut = (client: Socket, upstream: Socket) => {
    proxy.cuts++
    client.destroy()
    upstream.destroy()
  }
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname)
    sockets.add(client).add(upstream)
    let mode: CutMode = 'pass'
    client.on('data', (bytes) => {
      mode = proxy.mode
      upstream.write(bytes)
    })
    let head = ''
    let cutting = false
    upstream.on('data', (bytes) => {
      if (cutting) return
      if (mode === 'pass') return void client.write(bytes)
      // the server has read the request and answers: drop-request sends none of it back
      if (mode === 'drop-request') return cut(client, upstream)
      // cut-answer: up to the end of the HTTP head, then nothing more
      const sent = head.length
      head += bytes.toString('latin1')
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) return void client.write(bytes)
      cutting = true
      client.write(Buffer.from(head.slice(sent, end + 4), 'latin1'), () => cut(client, upstream))
    })
    for (const [a, b] of [[client, upstream], [upstream, client]]) {
      a.on('error', () => b.destroy())
      a.on('close', () => (b.destroy(), sockets.delete(a)))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  proxy.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  proxy.stop = () => {
    for (const s of sockets) s.destroy()
    return new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return proxy
}
