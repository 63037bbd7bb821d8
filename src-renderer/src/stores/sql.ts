import { defineStore } from 'pinia'
import { computed, ref, shallowRef, watch } from 'vue'
import { dimensionFields, listDimensionTables } from '../api/dimensions'
import { exportQuery, runQuery, type SqlFormat, type SqlRow } from '../api/sql'
import { cancellableRun } from './cancellableRun'
import { ANY_EVENT, useMetaStore } from './meta'
import { useSessionStore } from './session'
import { streamedExport, type StreamedExport } from './streamedExport'

const HISTORY_MAX = 30

export interface SqlResult {
  sql: string
  /** Column names in the order of the first row (a result without rows has none). */
  columns: string[]
  rows: SqlRow[]
  /** From sending the query to having parsed the answer. */
  elapsedMs: number
}

export interface HistoryEntry {
  sql: string
  /** Millisecond timestamp of the run. */
  at: number
  /** Rows returned, or null when it failed. */
  rows: number | null
  elapsedMs: number
  error: string | null
}

export type SqlExport = StreamedExport & { format: SqlFormat }

/** A column the editor can complete: its name in SQL, display name and data type. */
export interface SqlColumn {
  id: string
  name: string | null
  dataType: string
}

export interface SqlTable {
  name: string
  /** What the table holds, for the schema list. */
  label: string
  columns: SqlColumn[]
}

const EVENT_BASE: SqlColumn[] = [
  { id: 'distinct_id', name: 'Distinct id', dataType: 'number' },
  { id: 'xwho', name: 'User id', dataType: 'string' },
  { id: 'xwhat', name: 'Event id', dataType: 'string' },
  { id: 'xwhen', name: 'Event time', dataType: 'datetime' },
  { id: 'ds', name: 'Day, yyyyMMdd', dataType: 'number' },
]
const PROFILE_BASE = EVENT_BASE.slice(0, 2)

const key = (what: string, appKey: string) => `uba-desk.sql.${what}.${appKey}`

function readJson<T>(storageKey: string, fallback: T): T {
  try {
    const text = localStorage.getItem(storageKey)
    return text === null ? fallback : (JSON.parse(text) as T)
  } catch {
    return fallback
  }
}

function writeJson(storageKey: string, value: unknown): void {
  try {
    localStorage.setItem(storageKey, JSON.stringify(value))
  } catch {
    // storage full or disabled: history and draft last as long as the page
  }
}

/**
 * The SQL workspace of the current project: the draft, the last result, recent queries (kept in
 * localStorage per project), streamed exports, and the tables and columns the editor completes.
 */
export const useSqlStore = defineStore('sql', () => {
  const session = useSessionStore()
  const meta = useMetaStore()

  const owner = ref('')
  const draft = ref('')
  const result = shallowRef<SqlResult | null>(null)
  const error = ref<Error | null>(null)
  const history = ref<HistoryEntry[]>([])
  const { download, start: startExport, cancel: cancelExport } = streamedExport<{ format: SqlFormat }>()
  const tables = shallowRef<SqlTable[]>([])
  // the query under way, by its text
  const runs = cancellableRun<string>()
  const running = computed(() => runs.running.value !== null)

  /** Takes up the workspace of the current project (after a switch, or on first use). */
  function adopt(): void {
    const appKey = session.appKey
    if (owner.value === appKey) return
    cancel()
    cancelExport()
    owner.value = appKey
    draft.value = readJson(key('draft', appKey), '')
    const stored = readJson<unknown>(key('history', appKey), [])
    history.value = Array.isArray(stored) ? (stored as HistoryEntry[]).filter((e) => typeof e?.sql === 'string').slice(0, HISTORY_MAX) : []
    result.value = null
    error.value = null
    download.value = null
    tables.value = []
  }

  watch(draft, (text) => owner.value && writeJson(key('draft', owner.value), text))

  function remember(entry: HistoryEntry): void {
    history.value = [entry, ...history.value.filter((e) => e.sql !== entry.sql)].slice(0, HISTORY_MAX)
    writeJson(key('history', owner.value), history.value)
  }

  function clearHistory(): void {
    history.value = []
    writeJson(key('history', owner.value), [])
  }

  async function run(sql: string): Promise<void> {
    const text = sql.trim()
    if (text === '') return
    const auth = session.projectAuth
    error.value = null
    const started = performance.now()
    const elapsed = () => Math.round(performance.now() - started)
    await runs.start(text, async (signal) => ({ rows: await runQuery(auth, text, { signal }), elapsedMs: elapsed() }), {
      answer: ({ rows, elapsedMs }) => {
        result.value = { sql: text, columns: rows.length ? Object.keys(rows[0]) : [], rows, elapsedMs }
        remember({ sql: text, at: Date.now(), rows: rows.length, elapsedMs, error: null })
      },
      failed: (err) => {
        error.value = err
        remember({ sql: text, at: Date.now(), rows: null, elapsedMs: elapsed(), error: err.message })
      },
    })
  }

  /** Stops waiting for the running query; the previous result stays. */
  function cancel(): void {
    runs.cancel()
  }

  /** Streams the whole result of `sql`; resolves to the file, or null when it failed or was stopped. */
  async function exportResult(sql: string, format: SqlFormat): Promise<Blob | null> {
    const text = sql.trim()
    if (text === '' || download.value?.state === 'running') return null
    const auth = session.projectAuth
    return startExport({ format }, (signal) => exportQuery(auth, text, format, { signal }))
  }

  /** The queryable tables and their columns, from the metadata API; a part that fails is left out. */
  async function loadTables(): Promise<void> {
    const auth = session.projectAuth
    await meta.load()
    const [eventProperties, dimensions] = await Promise.all([meta.propertiesOf(ANY_EVENT).catch(() => []), listDimensionTables(auth).catch(() => [])])
    const dimensionTables = await Promise.all(
      dimensions.map(async (d): Promise<SqlTable> => {
        const fields = await dimensionFields(auth, d.table).catch(() => [])
        return { name: d.table, label: d.showName || 'Dimension table', columns: fields.map((f) => ({ id: f.id, name: f.name, dataType: f.dataType })) }
      }),
    )
    if (auth.appKey !== owner.value) return
    const userColumns = meta.userProperties.filter((p) => p.id !== 'xwho' && p.id !== 'distinct_id')
    tables.value = [
      { name: 'event_vd', label: 'Events', columns: [...EVENT_BASE, ...eventProperties.map((p) => ({ id: p.id, name: p.name, dataType: p.dataType }))] },
      { name: 'profile_vd', label: 'User profiles', columns: [...PROFILE_BASE, ...userColumns.map((p) => ({ id: p.id, name: p.name, dataType: p.dataType }))] },
      ...dimensionTables,
    ]
  }

  return { owner, draft, running, result, error, history, download, tables, adopt, run, cancel, exportResult, cancelExport, clearHistory, loadTables }
})
