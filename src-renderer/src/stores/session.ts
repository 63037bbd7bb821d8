import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { PlatformAuth, ProjectAuth } from '../api/http'

/** localStorage keys (web case only: the desktop app gets its credentials from the preload). */
export const STORAGE_KEYS = { xtoken: 'uba-desk.xtoken', appKey: 'uba-desk.appKey' } as const

function stored(key: string): string {
  try {
    return localStorage.getItem(key) ?? ''
  } catch {
    return ''
  }
}

function store(key: string, value: string): void {
  try {
    if (value) localStorage.setItem(key, value)
    else localStorage.removeItem(key)
  } catch {
    // storage disabled: the session lasts until the page is closed
  }
}

/**
 * Where the API is and which credentials to send. In the desktop app the preload provides all of
 * it; in a browser the page's own origin is the API and the xtoken comes from the connect link.
 * The project token is never stored: it is read again from the project list with the xtoken.
 */
export const useSessionStore = defineStore('session', () => {
  const desk = window.ubaDesk
  const isDesktop = desk !== undefined

  const apiBase = ref(desk?.apiBase ?? location.origin)
  const xtoken = ref(desk?.xtoken ?? stored(STORAGE_KEYS.xtoken))
  const appKey = ref(stored(STORAGE_KEYS.appKey) || (desk?.appKey ?? ''))
  const token = ref(appKey.value === desk?.appKey ? desk.token : '')

  const connected = computed(() => xtoken.value !== '')
  const platformAuth = computed<PlatformAuth>(() => ({ apiBase: apiBase.value, xtoken: xtoken.value }))
  const projectAuth = computed<ProjectAuth>(() => ({ apiBase: apiBase.value, appKey: appKey.value, token: token.value }))

  function connect(newXtoken: string): void {
    xtoken.value = newXtoken
    if (!isDesktop) store(STORAGE_KEYS.xtoken, newXtoken)
  }

  /** Forgets the xtoken (it was refused, or the user disconnects this browser). */
  function disconnect(): void {
    xtoken.value = ''
    appKey.value = ''
    token.value = ''
    store(STORAGE_KEYS.xtoken, '')
  }

  function useProject(newAppKey: string, newToken: string): void {
    appKey.value = newAppKey
    token.value = newToken
    store(STORAGE_KEYS.appKey, newAppKey)
  }

  return { isDesktop, apiBase, xtoken, appKey, token, connected, platformAuth, projectAuth, connect, disconnect, useProject }
})
