import { createReadStream } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { Writable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { badParam } from '../errors'

/**
 * A byte-level pass over a line-oriented file (JSON lines, CSV, TSV), before DuckDB reads it:
 * - a gzip file must decompress completely (DuckDB's reader accepts a truncated one silently);
 * - no line may be longer than `maxLine` (DuckDB's reader drops such a line silently).
 * Such files are broken as a whole, so the import fails whatever `onError` says. No record is
 * parsed here: it only counts bytes between newlines. A preview scans only the lines it shows
 * (`untilLine`), so that it refuses what the import would.
 */
export async function scanLines(file: string, gzip: boolean, maxLine: number, untilLine = Number.POSITIVE_INFINITY): Promise<{ lines: number }> {
  let line = 1
  let current = 0
  const enough = new Error('enough lines')
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      let start = 0
      for (;;) {
        const nl = chunk.indexOf(10, start)
        const end = nl === -1 ? chunk.length : nl
        current += end - start
        if (current > maxLine) {
          done(badParam('file', `line ${line} is longer than ${Math.round(maxLine / 1024 / 1024)} MB, more than any record can be: this is not a JSON lines, CSV or TSV file the import can read`))
          return
        }
        if (nl === -1) break
        line++
        current = 0
        start = nl + 1
        if (line > untilLine) {
          done(enough)
          return
        }
      }
      done()
    },
  })
  const source = createReadStream(file, { highWaterMark: 1024 * 1024 })
  try {
    if (gzip) await pipeline(source, createGunzip(), sink)
    else await pipeline(source, sink)
  } catch (err) {
    if (err === enough) return { lines: untilLine }
    if (err instanceof Error && 'status' in err) throw err
    throw badParam('file', `the gzip file is damaged or truncated (${(err as Error).message})`)
  }
  return { lines: current === 0 ? line - 1 : line }
}

/** The first character of the (decompressed) file that is not white space, or '' for none. */
export async function firstCharacter(file: string, gzip: boolean): Promise<string> {
  const source = createReadStream(file, { highWaterMark: 64 * 1024 })
  const stream = gzip ? source.pipe(createGunzip()) : source
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const text = chunk.toString('utf8').trimStart()
      if (text !== '') return text[0]
    }
    return ''
  } catch {
    throw badParam('file', 'the gzip file is damaged or truncated')
  } finally {
    source.destroy()
  }
}
