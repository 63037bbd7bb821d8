import { defineStore } from 'pinia'
import { computed, reactive, ref, shallowRef } from 'vue'
import {
  formatOfName, previewImport, previewPart, startImport, type ImportKind, type ImportMapping, type ImportPreview, type ImportSource,
} from '../api/importFiles'
import type { UploadProgress } from '../api/upload'
import type { DataType } from '../api/schema'
import { useImportJobsStore } from './importJobs'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

/** How a tabular file's columns become a record: the user, the event and the time, then properties. */
export interface MappingDraft {
  xwho: string
  /** The event comes from a column, or is one fixed id for every row. */
  eventFrom: 'column' | 'fixed'
  xwhat: string
  event: string
  xwhen: string
  /** Column -> property id (a rename), or null to leave it out; absent: the default id. */
  properties: Record<string, string | null>
  /** Property id -> type, for a new property whose inferred type is not wanted. */
  types: Record<string, DataType>
}

const PREVIEW_DELAY_MS = 350

function emptyMapping(): MappingDraft {
  return { xwho: '', eventFrom: 'column', xwhat: '', event: '', xwhen: '', properties: {}, types: {} }
}

/**
 * The file import being prepared in the Import view: the file, its options and mapping, and the
 * server's preview of them. Starting it hands the job to the import jobs store.
 */
export const useImportStore = defineStore('import', () => {
  const session = useSessionStore()
  const jobs = useImportJobsStore()

  /** An uploaded File, or in the desktop app a file chosen in the open dialog (read where it is). */
  const file = shallowRef<ImportSource | null>(null)
  const kind = ref<ImportKind>('events')
  const sheet = ref('')
  /** The separator the user chose for a CSV file; empty: the one the server detects. */
  const delimiter = ref('')
  /** The decimal mark of a CSV file's numbers. */
  const decimal = ref<'.' | ','>('.')
  const mapping = reactive<MappingDraft>(emptyMapping())
  const onError = ref<'skip' | 'abort'>('skip')
  const dedupe = ref(false)

  const previewRead = projectResource<ImportPreview | null>(null, { newestWins: true, loadingOn: 'always', after: async () => adoptPreviewGuess() })
  const { data: preview, state: previewState, error: previewError } = previewRead
  const upload = ref<UploadProgress | null>(null)
  const starting = ref(false)
  const startError = ref<Error | null>(null)

  let part: Promise<ImportSource> | null = null
  /** The newest preview asks the server to propose the mapping. */
  let guessing = false
  let timer: ReturnType<typeof setTimeout> | undefined
  let uploadAbort: AbortController | null = null

  /** SDK records (JSON) route themselves; other files need the mapping. */
  const tabular = computed(() => preview.value !== null && preview.value.kind !== 'records')
  const format = computed(() => preview.value?.format ?? (file.value ? formatOfName(file.value.name) : null))

  /** A CSV or TSV file: the only kind a separator and a decimal mark apply to. */
  function tabularText(): boolean {
    const f = format.value
    return f === 'csv' || f === 'tsv'
  }

  /** The mapping as the API takes it; `guess` leaves it empty so the server proposes one. */
  function requestMapping(): ImportMapping {
    const m: ImportMapping = {}
    if (mapping.xwho) m.xwho = mapping.xwho
    if (kind.value === 'events') {
      if (mapping.eventFrom === 'column' && mapping.xwhat) m.xwhat = mapping.xwhat
      if (mapping.eventFrom === 'fixed' && mapping.event.trim()) m.event = mapping.event.trim()
      if (mapping.xwhen) m.xwhen = mapping.xwhen
    }
    const used = new Set([m.xwho, m.xwhat, m.xwhen])
    const properties = Object.fromEntries(Object.entries(mapping.properties).filter(([column]) => !used.has(column)))
    if (Object.keys(properties).length > 0) m.properties = properties
    if (Object.keys(mapping.types).length > 0) m.types = { ...mapping.types }
    return m
  }

  function adoptGuess(guess: ImportMapping | null): void {
    Object.assign(mapping, emptyMapping(), {
      xwho: guess?.xwho ?? '',
      xwhat: guess?.xwhat ?? '',
      xwhen: guess?.xwhen ?? '',
      event: guess?.event ?? '',
      eventFrom: guess?.event ? 'fixed' : 'column',
    })
  }

  /** A newer preview, another file (a reset) or another project makes an answer stale. */
  function runPreview(guess: boolean): Promise<void> {
    const chosen = file.value
    if (!chosen) return Promise.resolve()
    guessing = guess
    return previewRead.load(async (auth) => {
      part ??= chosen instanceof File ? previewPart(chosen) : Promise.resolve(chosen)
      const options = {
        kind: kind.value, sheet: sheet.value || undefined, delimiter: delimiter.value || undefined, decimal: tabularText() ? decimal.value : undefined,
        format: formatOfName(chosen.name) ?? undefined, mapping: guess ? {} : requestMapping(),
      }
      return previewImport(auth, await part, options)
    })
  }

  function adoptPreviewGuess(): void {
    if (guessing && previewState.value === 'ready') adoptGuess(preview.value?.mapping ?? null)
  }

  /** Previews again after the user stops changing the mapping for a moment. */
  function refresh(): void {
    clearTimeout(timer)
    // without a first preview there is no mapping yet: the server proposes one again
    const guess = preview.value === null
    timer = setTimeout(() => void runPreview(guess), PREVIEW_DELAY_MS)
  }

  function choose(next: ImportSource): void {
    reset()
    file.value = next
    void runPreview(true)
  }

  /** Events or profiles: the columns mean different things, so the mapping is guessed again. */
  function setKind(next: ImportKind): void {
    kind.value = next
    void runPreview(true)
  }

  function setSheet(next: string): void {
    sheet.value = next
    void runPreview(true)
  }

  /** Another separator gives other columns: the preview of the old ones goes, the mapping is guessed again. */
  function setDelimiter(next: string): void {
    delimiter.value = next
    preview.value = null
    void runPreview(true)
  }

  /** Numbers read with the other decimal mark: the same columns, typed again. */
  function setDecimal(next: '.' | ','): void {
    decimal.value = next
    void runPreview(false)
  }

  async function start(): Promise<boolean> {
    const chosen = file.value
    if (!chosen || starting.value) return false
    const auth = session.projectAuth
    starting.value = true
    startError.value = null
    // a file read where it is has nothing to upload
    upload.value = chosen instanceof File ? { loaded: 0, total: chosen.size } : null
    uploadAbort = new AbortController()
    try {
      // the separator the preview was read with, so that the import reads the columns it showed
      const separator = delimiter.value || preview.value?.delimiter || undefined
      const options = {
        kind: kind.value, sheet: sheet.value || undefined, delimiter: separator, decimal: tabularText() ? decimal.value : undefined, format: format.value ?? undefined, onError: onError.value, dedupe: dedupe.value,
      }
      const job = await startImport(auth, chosen, tabular.value ? { ...options, mapping: requestMapping() } : options, {
        onProgress: (p) => (upload.value = p),
        signal: uploadAbort.signal,
      })
      if (auth.appKey === session.appKey) jobs.follow(job)
      reset()
      return true
    } catch (err) {
      if (!(err instanceof DOMException && err.name === 'AbortError')) startError.value = err as Error
      return false
    } finally {
      starting.value = false
      upload.value = null
      uploadAbort = null
    }
  }

  /** Stops an upload still under way (nothing has been queued yet). */
  function stopUpload(): void {
    uploadAbort?.abort()
  }

  function reset(): void {
    clearTimeout(timer)
    previewRead.drop()
    part = null
    file.value = null
    kind.value = 'events'
    sheet.value = ''
    delimiter.value = ''
    decimal.value = '.'
    Object.assign(mapping, emptyMapping())
    startError.value = null
  }

  return {
    file, kind, sheet, delimiter, decimal, mapping, onError, dedupe, preview, previewState, previewError, upload, starting, startError, tabular, format,
    choose, setKind, setSheet, setDelimiter, setDecimal, refresh, start, stopUpload, reset,
  }
})
