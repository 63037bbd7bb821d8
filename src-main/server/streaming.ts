import { once } from 'node:events'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * Sends a streamed body (JSON lines, CSV) with back-pressure. The first piece is produced before
 * anything is sent, so a request that fails early (bad SQL, unknown user) still gets its
 * `{code, msg, data}` answer; after that the status is 200 and a failure cuts the response short
 * (the chunked body never ends, so the client sees an incomplete transfer, not a clean end).
 * When the client goes away, `signal` aborts: producers interrupt their query with it.
 */
export async function sendStream(
  request: FastifyRequest,
  reply: FastifyReply,
  contentType: string,
  produce: (signal: AbortSignal) => AsyncIterable<string | Buffer>,
): Promise<void> {
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
      if (!res.write(next.value)) {
        await Promise.race([once(res, 'drain'), once(res, 'close')])
      }
      if (controller.signal.aborted) break
      next = await pieces.next()
    }
    done = true
    if (!controller.signal.aborted) res.end()
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
