import { defineStore } from 'pinia'
import { ref } from 'vue'
import { getCollectorListener, switchCollectorListener, type CollectorListenerState } from '../api/collector'
import { useSessionStore } from './session'

/** The collector's own listener (phones on the LAN send there), as the server reports it. */
export const useCollectorStore = defineStore('collector', () => {
  const session = useSessionStore()
  const listener = ref<CollectorListenerState | null>(null)
  const switching = ref(false)
  const error = ref('')

  async function load(): Promise<void> {
    try {
      listener.value = await getCollectorListener(session.platformAuth)
    } catch (err) {
      error.value = (err as Error).message
    }
  }

  async function setListening(listen: boolean, host: string, port: number): Promise<void> {
    switching.value = true
    error.value = ''
    try {
      listener.value = await switchCollectorListener(session.platformAuth, listen, host, port)
    } catch (err) {
      error.value = (err as Error).message
    } finally {
      switching.value = false
    }
  }

  return { listener, switching, error, load, setListening }
})
