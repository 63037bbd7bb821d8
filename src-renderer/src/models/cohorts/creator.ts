import type { Cohort } from '../../api/cohorts'

/**
 * Who made a cohort, in words. This app has no accounts: it creates cohorts through the API without
 * loginUser, so the server records them as the API's own ('API', as for any script without an
 * account). The ids of the cohorts made in this app are noted per project, so that those say so;
 * the rest of the API's own say they came through the API.
 */

/** What createdUser says for cohorts the API created without loginUser (server: API_CREATOR). */
const API_CREATOR = 'API'

function mineKey(appKey: string): string {
  return `uba-desk.cohorts.mine.${appKey}`
}

function readMine(appKey: string): number[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(mineKey(appKey)) ?? '[]')
    return Array.isArray(value) ? value.filter((v): v is number => Number.isInteger(v)) : []
  } catch {
    return []
  }
}

/** Notes a cohort made in this app (the builder, a file, the users of a chart cell). */
export function noteMine(appKey: string, id: number): void {
  try {
    localStorage.setItem(mineKey(appKey), JSON.stringify([...readMine(appKey).filter((v) => v !== id), id]))
  } catch {
    // storage disabled: the cohort says it came through the API, which is true as well
  }
}

export function creatorText(appKey: string, cohort: Pick<Cohort, 'id' | 'createdUser'>): string {
  if (cohort.createdUser !== API_CREATOR) return `by ${cohort.createdUser}`
  return readMine(appKey).includes(cohort.id) ? 'by you (this app)' : 'through the API (no account)'
}
