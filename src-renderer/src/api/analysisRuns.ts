import type { Answer, StreamLine } from '../../../src-shared/contract'
import { analyze, type AnalysisKind, type AnalysisRequests, type AnalysisResponses } from './analysis'
import { request, requestStream, type ProjectAuth } from './http'

/** One line of an analysis run's progress (GET /uba/api/analyses/{runId}/progress). */
export type RunProgress = StreamLine<'/uba/api/analyses/{runId}/progress'>

/**
 * Follows the progress of the analysis started with `runId`, calling `onLine` per line, until it
 * ends or `signal` stops it. Failures are left unsaid: progress is a courtesy, the answer is the analysis's.
 */
export async function followRun(auth: ProjectAuth, runId: string, onLine: (line: RunProgress) => void, signal: AbortSignal): Promise<void> {
  try {
    const response = await requestStream(auth, 'GET', `/uba/api/analyses/${encodeURIComponent(runId)}/progress`, undefined, { signal })
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let buffered = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffered += value
      for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
        onLine(JSON.parse(buffered.slice(0, at)) as RunProgress)
        buffered = buffered.slice(at + 1)
      }
    }
  } catch {
    // the analysis answers for itself
  }
}

/** Cancels the analysis started with `runId` (its request then answers 503 "… was cancelled"); `cancelled` false when it was not running. */
export function cancelRun(auth: ProjectAuth, runId: string): Promise<Answer<'/uba/api/analyses/{runId}', 'delete'>> {
  return request(auth, 'DELETE', `/uba/api/analyses/${encodeURIComponent(runId)}`)
}

/**
 * Runs an analysis under a new run name (explain=true): `onProgress` gets its percent while it runs
 * (null while the server cannot tell), and when `signal` aborts, the server is told to stop it too.
 */
export async function analyzeFollowed<K extends AnalysisKind>(
  auth: ProjectAuth,
  kind: K,
  body: AnalysisRequests[K],
  signal: AbortSignal,
  onProgress: (percent: number | null) => void,
): Promise<AnalysisResponses[K]> {
  const runId = crypto.randomUUID()
  const following = new AbortController()
  signal.addEventListener('abort', () => void cancelRun(auth, runId).catch(() => undefined), { once: true })
  void followRun(auth, runId, (line) => {
    if (line.state === 'running') onProgress(line.progress !== undefined && line.progress >= 0 ? line.progress : null)
  }, AbortSignal.any([signal, following.signal]))
  try {
    return await analyze(auth, kind, body, { explain: true, signal, runId })
  } finally {
    following.abort()
  }
}
