import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { createProject, getProject, listProjects, switchStream, type NewProject, type Project, type ProjectDetail, type StreamState } from '../api/platform'
import { getOverview, type ProjectOverview } from '../api/project'
import type { PlatformAuth } from '../api/http'
import { projectResource } from './projectResource'
import { useSessionStore } from './session'

type LoadState = 'idle' | 'loading' | 'ready' | 'error'

/** How long background work (a project's database, a stream switch) is followed before giving up. */
const FOLLOW_LIMIT_MS = 60_000

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Reads a project's detail until `settled` holds. The server's background work usually takes a
 * fraction of a second, so the first reads come quickly and later ones slow down.
 */
async function follow(auth: PlatformAuth, appKey: string, settled: (detail: ProjectDetail) => boolean, onRead: (detail: ProjectDetail) => void, slowMessage: string): Promise<ProjectDetail> {
  const deadline = Date.now() + FOLLOW_LIMIT_MS
  for (let delay = 100; ; delay = Math.min(delay * 2, 1000)) {
    const detail = await getProject(auth, appKey)
    onRead(detail)
    if (settled(detail)) return detail
    if (Date.now() > deadline) throw new Error(slowMessage)
    await pause(delay)
  }
}

/** The project list, the current project (shared by every view) and its overview. */
export const useProjectStore = defineStore('project', () => {
  const session = useSessionStore()

  const projects = ref<Project[]>([])
  const listState = ref<LoadState>('idle')
  const listError = ref<Error | null>(null)
  const current = computed(() => projects.value.find((p) => p.appKey === session.appKey) ?? null)

  // a failed read shows no overview: the numbers before would look current
  const overviewRead = projectResource<ProjectOverview | null>(null, { newestWins: true, loadingOn: 'always', forgetOnError: true })
  const { data: overview, state: overviewState, error: overviewError } = overviewRead

  /** Keeps the chosen project if it still exists, else takes the first one. */
  function settle(list: Project[]): void {
    projects.value = list
    const chosen = list.find((p) => p.appKey === session.appKey) ?? list[0]
    if (chosen) session.useProject(chosen.appKey, chosen.normalToken)
  }

  /** Lists projects with a candidate xtoken and, if it is accepted, connects with it. */
  async function connect(xtoken: string): Promise<void> {
    const list = await listProjects({ apiBase: session.apiBase, xtoken })
    session.connect(xtoken)
    settle(list)
    listState.value = 'ready'
    listError.value = null
  }

  async function load(): Promise<void> {
    const auth = session.platformAuth
    listState.value = 'loading'
    listError.value = null
    try {
      const list = await listProjects(auth)
      // connecting with another xtoken meanwhile makes this answer stale
      if (auth.xtoken !== session.xtoken) return
      settle(list)
      listState.value = 'ready'
    } catch (err) {
      if (auth.xtoken !== session.xtoken) throw err
      listError.value = err as Error
      listState.value = 'error'
      throw err
    }
  }

  function select(appKey: string): void {
    const project = projects.value.find((p) => p.appKey === appKey)
    if (project) session.useProject(project.appKey, project.normalToken)
  }

  function loadOverview(): Promise<void> {
    const appKey = session.appKey
    // another project's overview is not shown while this one's is read
    if (appKey && overview.value?.appKey !== appKey) overview.value = null
    return overviewRead.load(getOverview)
  }

  /** Records a stream state read from the server in the list and the overview, which both show it. */
  function noteStream(appKey: string, stream: StreamState): void {
    projects.value = projects.value.map((p) => (p.appKey === appKey && p.stream !== stream ? { ...p, stream } : p))
    if (overview.value?.appKey === appKey && overview.value.stream !== stream) overview.value = { ...overview.value, stream }
  }

  /** Creates a project, waits until its database exists, then makes it the current project. */
  async function create(input: NewProject): Promise<string> {
    const auth = session.platformAuth
    const { appKey } = await createProject(auth, input)
    try {
      const detail = await follow(auth, appKey, (d) => d.finish || d.status === 3, () => undefined, 'The project was registered, but its database is still being created. Open Settings again in a moment.')
      if (!detail.finish) throw new Error('The project was registered, but its database could not be created (status: abnormal).')
    } finally {
      // it is registered either way: the list shows it as soon as it is usable
      await load().catch(() => undefined)
    }
    select(appKey)
    return appKey
  }

  /** Follows a project's data stream through starting / closing until it settles. */
  async function followStream(appKey: string): Promise<StreamState> {
    const detail = await follow(
      session.platformAuth,
      appKey,
      (d) => d.stream !== 1 && d.stream !== 5,
      (d) => noteStream(appKey, d.stream),
      'The data stream has not settled yet; its state will update when Settings is opened again.',
    )
    return detail.stream
  }

  /** Starts or stops a project's data stream and follows it until it settles. */
  async function setStream(appKey: string, on: boolean): Promise<StreamState> {
    await switchStream(session.platformAuth, appKey, on)
    return followStream(appKey)
  }

  return { projects, listState, listError, current, overview, overviewState, overviewError, connect, load, select, loadOverview, create, setStream, followStream }
})
