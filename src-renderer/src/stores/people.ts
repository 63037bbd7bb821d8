import { defineStore } from 'pinia'
import { computed, ref, shallowRef, watch } from 'vue'
import { exportSequence, getSequence, getUser, type ExportFormat, type SequenceRow, type UserDetail, type UserRef } from '../api/people'
import { runQuery } from '../api/sql'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'
import { streamedExport, type StreamedExport } from './streamedExport'

/** Events fetched per step of "load more". */
export const PAGE_SIZE = 100
/** The most events one sequence request returns. */
export const MAX_LIMIT = 10_000
const RECENT_MAX = 8

export interface SequenceFilter {
  /** yyyy-MM-dd, both included. */
  from: string
  to: string
  /** Event ids; empty: every event. */
  events: string[]
}

/** A user worth a look when no id is at hand: among the most active of recent days. */
export interface ActiveUser {
  xwho: string
  events: number
}

export type SequenceExport = StreamedExport & { format: ExportFormat }

function sameUser(a: UserRef | null, b: UserRef | null): boolean {
  if (!a || !b) return a === b
  return 'xwho' in a ? 'xwho' in b && a.xwho === b.xwho : 'distinctId' in b && a.distinctId === b.distinctId
}

function recentKey(appKey: string): string {
  return `uba-desk.people.recent.${appKey}`
}

function readRecent(appKey: string): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(recentKey(appKey)) ?? '[]')
    return Array.isArray(list) ? list.filter((v): v is string => typeof v === 'string').slice(0, RECENT_MAX) : []
  } catch {
    return []
  }
}

/**
 * One user at a time: their profile, their behaviour sequence under a filter, and its export. A
 * newer request makes an older answer stale (the user typed another id, changed the range): stale
 * answers are dropped.
 */
export const usePeopleStore = defineStore('people', () => {
  const session = useSessionStore()

  const owner = ref('')
  const user = shallowRef<UserRef | null>(null)

  // a failed read of the profile shows no profile: an older one would look like this user's
  const profileRead = projectResource<UserDetail | null>(null, { newestWins: true, loadingOn: 'always', forgetOnError: true, after: async () => rememberShown() })
  const { data: profile, state: profileState, error: profileError } = profileRead

  const filter = shallowRef<SequenceFilter>({ from: '', to: '', events: [] })
  const limit = ref(PAGE_SIZE)
  const sequence = projectResource<SequenceRow[]>([], { newestWins: true, loadingOn: 'always' })
  const { data: rows, state: sequenceState, error: sequenceError } = sequence
  /** Fewer rows than asked for came back: the range holds no more. */
  const complete = computed(() => sequenceState.value === 'ready' && rows.value.length < limit.value)
  const canLoadMore = computed(() => sequenceState.value === 'ready' && !complete.value && limit.value < MAX_LIMIT)

  const { download, start: startExport, cancel: cancelExport } = streamedExport<{ format: ExportFormat }>()
  const recent = ref<string[]>([])
  const active = shallowRef<ActiveUser[]>([])

  let shownProperties: string[] | undefined

  /**
   * Shows another user (or the same one again, fresh) with the given filter; `properties` are the
   * user property ids to show (undefined: the API's default, every visible one).
   */
  function open(next: UserRef, nextFilter: SequenceFilter, properties?: string[]): void {
    const appKey = session.appKey
    if (owner.value !== appKey || !sameUser(user.value, next)) {
      profile.value = null
      rows.value = []
      cancelExport()
      download.value = null
    }
    owner.value = appKey
    user.value = next
    filter.value = nextFilter
    limit.value = PAGE_SIZE
    shownProperties = properties
    void loadProfile()
    void loadSequence()
  }

  function close(): void {
    profileRead.drop()
    sequence.drop()
    cancelExport()
    user.value = null
    download.value = null
  }

  function loadProfile(): Promise<void> {
    const who = user.value
    if (!who) return Promise.resolve()
    return profileRead.load((auth) => getUser(auth, who, shownProperties))
  }

  /** The user whose profile just arrived goes first in the recent list. */
  function rememberShown(): void {
    const detail = profile.value
    const who = user.value
    if (profileState.value === 'ready' && detail && who) remember(profileRead.owner.value, String(detail.xwho ?? ('xwho' in who ? who.xwho : '')))
  }

  function loadSequence(): Promise<void> {
    const who = user.value
    if (!who) return Promise.resolve()
    const { from, to, events } = filter.value
    return sequence.load(async (auth) => (await getSequence(auth, who, { fromDate: from, toDate: to, limit: limit.value, ...(events.length ? { events } : {}) })).rows)
  }

  function setFilter(next: SequenceFilter): void {
    filter.value = next
    limit.value = PAGE_SIZE
    void loadSequence()
  }

  /** The API pages by limit only, so more rows means asking again for a larger limit. */
  function loadMore(): void {
    if (!canLoadMore.value) return
    limit.value = Math.min(MAX_LIMIT, limit.value + PAGE_SIZE)
    void loadSequence()
  }

  /** Streams every event of the filter as JSON lines or CSV; resolves to the file, or null when it failed or was cancelled. */
  async function exportEvents(format: ExportFormat = 'json'): Promise<Blob | null> {
    const who = user.value
    if (!who || download.value?.state === 'running') return null
    const auth = session.projectAuth
    const { from, to, events } = filter.value
    return startExport({ format }, (signal) => exportSequence(auth, who, { fromDate: from, toDate: to, ...(events.length ? { events } : {}) }, format, { signal }))
  }

  /**
   * The most active users since `fromDay` (yyyy-MM-dd), through custom SQL (no API lists users by
   * activity); the SQL holds no user text, only that day as a number. A failure leaves the list empty.
   */
  async function loadActive(fromDay: string): Promise<void> {
    const ds = Number(fromDay.replaceAll('-', ''))
    const auth = session.projectAuth
    if (!Number.isSafeInteger(ds)) return
    try {
      const rows = await runQuery(auth, `SELECT xwho, count(*) AS events FROM event_vd WHERE ds >= ${ds} GROUP BY xwho ORDER BY events DESC, xwho LIMIT 8`)
      if (auth.appKey !== session.appKey) return
      active.value = rows.map((r) => ({ xwho: String(r.xwho), events: Number(r.events) }))
    } catch {
      active.value = []
    }
  }

  function loadRecent(): void {
    recent.value = readRecent(session.appKey)
  }

  function remember(appKey: string, xwho: string): void {
    if (!xwho || appKey !== session.appKey) return
    recent.value = [xwho, ...readRecent(appKey).filter((v) => v !== xwho)].slice(0, RECENT_MAX)
    try {
      localStorage.setItem(recentKey(appKey), JSON.stringify(recent.value))
    } catch {
      // storage disabled: the list lasts as long as the page
    }
  }

  // another project: its users are not this one's, nor its most active users or last error
  watch(
    () => session.appKey,
    (next, before) => {
      if (before === undefined || next === before) return
      close()
      owner.value = next
      filter.value = { from: '', to: '', events: [] }
      active.value = []
      recent.value = readRecent(next)
    },
  )

  return {
    owner, user, profile, profileState, profileError,
    filter, limit, rows, sequenceState, sequenceError, complete, canLoadMore,
    download, recent, active,
    open, close, loadProfile, loadSequence, setFilter, loadMore, exportEvents, cancelExport, loadRecent, loadActive,
  }
})
