import { shallowRef } from 'vue'
import { readStream, type StreamProgress } from '../api/http'

/** Where a streamed export stands: what has arrived so far, and why it failed. */
export interface StreamedExport {
  state: 'running' | 'done' | 'error' | 'cancelled'
  progress: StreamProgress
  error: Error | null
}

/**
 * One streamed export at a time, for a store: `download` says where it stands (with `Extra`
 * fields such as its format), `cancel` stops it. A start resolves to the file, or null when it
 * failed or was stopped; an export that a later one replaced no longer changes `download`.
 */
export function streamedExport<Extra extends object = object>() {
  const download = shallowRef<(StreamedExport & Extra) | null>(null)
  let controller: AbortController | null = null

  async function start(extra: Extra, open: (signal: AbortSignal) => Promise<Response>): Promise<Blob | null> {
    const mine = new AbortController()
    controller = mine
    download.value = { ...extra, state: 'running', progress: { bytes: 0, lines: 0 }, error: null }
    const update = (patch: Partial<StreamedExport>) => {
      if (controller === mine && download.value) download.value = { ...download.value, ...patch }
    }
    try {
      const response = await open(mine.signal)
      const file = await readStream(response, (progress) => update({ progress }), mine.signal)
      update({ state: 'done' })
      return file
    } catch (err) {
      update(mine.signal.aborted ? { state: 'cancelled' } : { state: 'error', error: err as Error })
      return null
    } finally {
      if (controller === mine) controller = null
    }
  }

  function cancel(): void {
    controller?.abort()
  }

  return { download, start, cancel }
}
