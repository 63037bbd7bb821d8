import { request, type PlatformAuth } from './http'

/** The second listener serving the local collector (/up) alone, for phones and other machines. */
export interface CollectorListenerState {
  listening: boolean
  /** 0.0.0.0: every network interface; 127.0.0.1: this machine only. */
  host: string | null
  port: number | null
  /** The /up addresses to put into an SDK. */
  urls: string[]
}

const LISTENER = '/uba/manage/enterprise/collector'

export function getCollectorListener(auth: PlatformAuth): Promise<CollectorListenerState> {
  return request<CollectorListenerState>(auth, 'GET', LISTENER)
}

export function switchCollectorListener(auth: PlatformAuth, listen: boolean, host?: string, port?: number): Promise<CollectorListenerState> {
  return request<CollectorListenerState>(auth, 'POST', LISTENER, listen ? { listen, host, port } : { listen })
}
