import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * Sends a streamed body (JSON lines, CSV) with back-pressure. The first piece is produced before
 * anything is sent, so a request that fails early (bad SQL, unknown user) still gets its
 * `{code, msg, data}` answer; after that the status is 200 and a failure cuts the response short
 * (the chunked body never ends, so the client sees an incomplete transfer, not a clean end).
 * When the client goes away, `signal` aborts: producers interrupt their query with it. A client
 * that keeps the connection but takes no data for `stallMs` while a piece waits is dropped the
 * same way, so that it cannot hold a query (and its engine resources) open forever.
 */
export async function sendStream(
  request: FastifyRequest,
  reply: FastifyReply,
  contentType: string,
  produce: (signal: AbortSignal) => AsyncIterable<string | Buffer>,
  options: { stallMs?: number } = {},
): Promise<void> {
  const stallMs = options.stallMs ?? 60_000
  const controller = new AbortController()
  const res = reply.raw
  const onClose = () => {
    if (!res.writableFinished) controller.abort()
  }
  res.on('close', onClose)
  const pieces = produce(controller.signal)[Symbol.asyncIterator]()
  let done = false
  try {
    const first = await pieces.next()
    reply.hijack()
    res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store', 'x-request-id': String(request.id) })
    let next = first
    while (!next.done) {
      if (controller.signal.aborted) break
      if (!res.write(next.value) && !(await drained(res, stallMs))) {
        controller.abort()
        res.destroy()
        break
      }
      if (controller.signal.aborted) break
      next = await pieces.next()
    }
    done = true
    // a client gone (or half-gone: it may only have shut its side) gets the socket closed, so
    // that nothing lingers for the server's close to wait on
    if (controller.signal.aborted) res.destroy()
    else res.end()
  } catch (err) {
    if (!reply.sent && !res.headersSent) throw err
    request.log.warn({ err }, 'stream cut short')
    res.destroy()
  } finally {
    res.off('close', onClose)
    if (!done) controller.abort()
    await pieces.return?.(undefined)
  }
}

/** Waits until the client takes the buffered data: false when it went away or stalled `stallMs`. */
function drained(res: FastifyReply['raw'], stallMs: number): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false)
  return new Promise((resolve) => {
    const finish = (ok: boolean) => {
      clearTimeout(timer)
      res.off('drain', onDrain)
      res.off('close', onGone)
      resolve(ok)
    }
    const onDrain = () => finish(true)
    const onGone = () => finish(false)
    const timer = setTimeout(onGone, stallMs)
    res.once('drain', onDrain)
    res.once('close', onGone)
  })
}
