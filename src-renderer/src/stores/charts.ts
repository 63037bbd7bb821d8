import { defineStore } from 'pinia'
import { computed, reactive, ref, shallowReactive, watch } from 'vue'
import type { AnalysisKind, AnalysisResponses } from '../api/analysis'
import { analyzeFollowed } from '../api/analysisRuns'
import { ApiError } from '../api/http'
import type { ChartState } from '../models/charts/chartState'
import { defaultDefinitions, type Definitions, type RangeDraft } from '../models/charts/definitions'
import { resolveRange, today } from '../models/charts/dates'
import { filterText } from '../models/charts/filterText'
import { buildRequest } from '../models/charts/requests'
import { eventsWithNamedProperties, labelsFor, type Names, type ResultLabels } from '../models/charts/resultLabels'
import { cancellableRun } from './cancellableRun'
import { ANY_EVENT, useMetaStore } from './meta'
import { useProjectStore } from './project'
import { useSessionStore } from './session'

/** An answer, with the request it answers (its key), so a changed query is never shown stale as current. */
export interface ChartResult<K extends AnalysisKind = AnalysisKind> {
  key: string
  kind: K
  response: AnalysisResponses[K]
  labels: ResultLabels
}

export type ChartStatus = 'missing' | 'loading' | 'error' | 'ready'

/** Edits settle for this long before the query runs, so typing a bucket does not fire a request per key. */
const SETTLE_MS = 300

/**
 * The chart builder's state: the definition of each analysis, the date range and crowd they share,
 * and the latest answer of each. A complete query runs by itself once edits settle; an older
 * request still running is aborted. Results are kept per analysis, so switching back is instant.
 */
export const useChartsStore = defineStore('charts', () => {
  const session = useSessionStore()
  const projects = useProjectStore()
  const meta = useMetaStore()
  const names: Names = {
    event: (id) => meta.eventName(id),
    userProperty: (id) => meta.userPropertyName(id),
    eventProperty: (eventId, id) => meta.propertyName(`event.${eventId}.${id}`),
  }

  const kind = ref<AnalysisKind>('events')
  const defs = reactive<Definitions>(defaultDefinitions())
  const range = reactive<RangeDraft>({ preset: 'last30', from: '', to: '' })
  const crowd = ref('$ALL')

  const results = shallowReactive<Partial<Record<AnalysisKind, ChartResult>>>({})
  const errors = shallowReactive<Partial<Record<AnalysisKind, { key: string; error: Error }>>>({})
  // the analysis under way (by its key), and how far it is in percent (the server's progress route)
  const runs = cancellableRun<string>()
  const { running, progress } = runs

  const timeZone = computed(() => projects.overview?.timeZone ?? projects.current?.timeZone)
  const built = computed(() => buildRequest(kind.value, defs, { range: resolveRange(range, timeZone.value), crowd: crowd.value }))
  const key = computed(() => ('body' in built.value ? `${kind.value}:${JSON.stringify(built.value.body)}` : ''))
  const missing = computed(() => ('missing' in built.value ? built.value.missing : ''))

  const result = computed(() => results[kind.value] ?? null)
  const error = computed(() => {
    const e = errors[kind.value]
    return e && e.key === key.value ? e.error : null
  })
  const upToDate = computed(() => result.value !== null && result.value.key === key.value)
  const status = computed<ChartStatus>(() => {
    if (missing.value) return 'missing'
    if (error.value) return 'error'
    if (upToDate.value) return 'ready'
    return 'loading'
  })

  /** The filters a result applies, in words: the global one, then each measure's ("B: Amount > 10"). */
  function filtersOf(runKind: AnalysisKind): string {
    const named = (eventId: string) => (p: { scope: string; id: string }) => (p.scope === 'user' ? meta.userPropertyName(p.id) : meta.propertyName(`event.${eventId}.${p.id}`))
    const global = filterText(defs[runKind].filter, named(ANY_EVENT))
    const own = runKind === 'events' ? defs.events.measures.map((m, i) => [String.fromCharCode(65 + i), filterText(m.filter, named(m.eventId))]).filter(([, t]) => t).map(([letter, t]) => `${letter}: ${t}`) : []
    return [global, ...own].filter(Boolean).join(' · ')
  }

  let timer: ReturnType<typeof setTimeout> | undefined

  async function run(options: { fresh?: boolean } = {}): Promise<void> {
    clearTimeout(timer)
    const current = built.value
    if (!('body' in current)) return
    const runKind = kind.value
    const runKey = key.value
    const auth = session.projectAuth
    // no token yet (a reload, before the project list): the view runs it once the token is there
    if (!auth.token) return
    // the names of events and properties label the result: wait for them (at once when loaded)
    await meta.load()
    await Promise.all(eventsWithNamedProperties(runKind, defs).map((id) => meta.propertiesOf(id).catch(() => [])))
    if (key.value !== runKey) return
    // two callers (the view opening, the token arriving) may ask for the same query at once: one run serves both
    if (!options.fresh && runs.live(runKey)) return
    const body = current.body as { fromDate?: string; toDate?: string }
    const labels = {
      ...labelsFor(runKind, defs, names),
      range: body.fromDate && body.toDate ? { fromDate: body.fromDate, toDate: body.toDate } : undefined,
      partial: body.toDate !== undefined && body.toDate >= today(timeZone.value),
      today: today(timeZone.value),
      crowd: crowd.value === '$ALL' ? 'All users' : (meta.crowds.find((c) => c.code === crowd.value)?.name ?? crowd.value),
      filters: filtersOf(runKind),
    }
    delete errors[runKind]
    const sent = options.fresh ? { ...current.body, useCache: false } : current.body
    await runs.start(runKey, (signal, report) => analyzeFollowed(auth, runKind, sent, signal, report), {
      answer: (response) => {
        if (auth.appKey === session.appKey) results[runKind] = { key: runKey, kind: runKind, response, labels } as ChartResult
      },
      failed: (err) => {
        errors[runKind] = { key: runKey, error: err }
        // the numbers of an earlier query would look like this one's: they go with the failure
        delete results[runKind]
        // a refused crowd is a cohort deleted elsewhere: the picker must stop offering it
        if (err instanceof ApiError && err.status === 400 && Array.isArray(err.data) && err.data.some((p) => String(p).startsWith('crowds'))) void meta.loadCrowds()
      },
    })
  }

  /** Stops the running analysis, here and on the server; the chart says so until it runs again. */
  function cancel(): void {
    const runKey = running.value
    if (runKey === null) return
    runs.cancel()
    errors[kind.value] = { key: runKey, error: new Error('You cancelled this computation. Press Try again to run it again.') }
  }

  // a complete query runs once its edits settle; an answer already there for it is kept
  watch(key, (next) => {
    clearTimeout(timer)
    if (!next || running.value === next) return
    if (results[kind.value]?.key === next) {
      // back to the query on screen (a value added, then removed): a run for the edit in between
      // is no longer wanted, and its answer would replace this one's with nothing running to follow
      if (running.value?.startsWith(`${kind.value}:`)) runs.cancel()
      return
    }
    timer = setTimeout(() => void run(), SETTLE_MS)
  })

  /** Starts afresh: the builder's defaults, no results (a new project, or "New chart"). */
  function reset(): void {
    runs.cancel()
    clearTimeout(timer)
    Object.assign(defs, defaultDefinitions())
    for (const k of Object.keys(results) as AnalysisKind[]) delete results[k]
    for (const k of Object.keys(errors) as AnalysisKind[]) delete errors[k]
    crowd.value = '$ALL'
  }

  /** The chart on screen, as an address or a saved report keeps it. */
  const state = computed<ChartState>(() => ({ kind: kind.value, definition: defs[kind.value], range: { ...range }, crowd: crowd.value }))

  /** Shows a chart (a saved report, an address): its analysis, definition, range and crowd replace the builder's. */
  function apply(chart: ChartState): void {
    const copy = JSON.parse(JSON.stringify(chart)) as ChartState
    kind.value = copy.kind
    ;(defs as Record<AnalysisKind, unknown>)[copy.kind] = copy.definition
    Object.assign(range, copy.range)
    crowd.value = copy.crowd
  }

  /** Runs the current query now if it has no answer yet (opening the view, reopening a report). */
  function ensure(): void {
    if (key.value && !upToDate.value && running.value !== key.value) void run()
  }

  watch(
    () => session.appKey,
    (next, before) => {
      if (before !== undefined && next !== before) reset()
    },
  )

  return { kind, defs, range, crowd, state, results, result, error, status, missing, key, built, upToDate, running, progress, timeZone, run, cancel, reset, ensure, apply }
})
