import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import { listProjects, type Project } from '../api/platform'
import { getOverview, type ProjectOverview } from '../api/project'
import { useSessionStore } from './session'

type LoadState = 'idle' | 'loading' | 'ready' | 'error'

/** The project list, the current project (shared by every view) and its overview. */
export const useProjectStore = defineStore('project', () => {
  const session = useSessionStore()

  const projects = ref<Project[]>([])
  const listState = ref<LoadState>('idle')
  const listError = ref<Error | null>(null)
  const current = computed(() => projects.value.find((p) => p.appKey === session.appKey) ?? null)

  const overview = ref<ProjectOverview | null>(null)
  const overviewState = ref<LoadState>('idle')
  const overviewError = ref<Error | null>(null)

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

  async function loadOverview(): Promise<void> {
    const auth = session.projectAuth
    if (!auth.appKey) return
    overviewState.value = 'loading'
    overviewError.value = null
    if (overview.value?.appKey !== auth.appKey) overview.value = null
    try {
      const result = await getOverview(auth)
      // a slow answer for a project the user has since switched away from is dropped
      if (auth.appKey !== session.appKey) return
      overview.value = result
      overviewState.value = 'ready'
    } catch (err) {
      if (auth.appKey !== session.appKey) return
      overview.value = null
      overviewError.value = err as Error
      overviewState.value = 'error'
    }
  }

  return { projects, listState, listError, current, overview, overviewState, overviewError, connect, load, select, loadOverview }
})
