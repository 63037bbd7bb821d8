import type { Answer, RequestBody } from '../../../src-shared/contract'
import { request, type PlatformAuth } from './http'

/** The second listener serving the local collector (/up) alone, for phones and other machines: host 0.0.0.0 is every network interface, urls the /up addresses to put into an SDK. */
export type CollectorListenerState = Answer<'/uba/manage/enterprise/collector'>

const LISTENER = '/uba/manage/enterprise/collector' as const

export function getCollectorListener(auth: PlatformAuth): Promise<CollectorListenerState> {
  return request<CollectorListenerState>(auth, 'GET', LISTENER)
}

export function switchCollectorListener(auth: PlatformAuth, listen: boolean, host?: string, port?: number): Promise<CollectorListenerState> {
  const body: RequestBody<typeof LISTENER> = listen ? { listen, host, port } : { listen }
  return request<CollectorListenerState>(auth, 'POST', LISTENER, body)
}
