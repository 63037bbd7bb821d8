import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { DomainContext } from '../domain/context'
import { AppError } from '../domain/errors'
import { lanCollectorUrls } from './collectorAddress'
import { buildCollectorServer } from './collectorServer'

/** What the collector listener is doing, as the API and the Settings view show it. */
export interface CollectorListenerState {
  listening: boolean
  /** The address listened on (0.0.0.0: every interface), or null. */
  host: string | null
  port: number | null
  /** The /up addresses to put into an SDK: one per LAN interface for 0.0.0.0. */
  urls: string[]
}

/** How long stopping waits for uploads in flight before their connections are cut. */
const STOP_GRACE_MS = 3000

/**
 * The optional second listener serving /up alone (collectorServer), started by
 * `serve --collector-listen` or switched on and off from Settings while the app runs.
 */
export class CollectorListener {
  private server: FastifyInstance | null = null
  private host: string | null = null
  private switching: Promise<unknown> = Promise.resolve()

  constructor(
    private readonly ctx: DomainContext,
    private readonly logger?: FastifyBaseLogger,
  ) {}

  state(): CollectorListenerState {
    const address = this.server?.server.address()
    if (!this.server || typeof address !== 'object' || !address || this.host === null) return { listening: false, host: null, port: null, urls: [] }
    return { listening: true, host: this.host, port: address.port, urls: lanCollectorUrls(this.host, address.port) }
  }

  /** Listens on host:port (0: a free port), in place of the address listened on so far. */
  start(host: string, port: number): Promise<CollectorListenerState> {
    return this.inTurn(async () => {
      await this.close()
      const server = await buildCollectorServer(this.ctx, { logger: this.logger })
      try {
        await server.listen({ host, port })
      } catch (err) {
        await server.close()
        const code = (err as { code?: string }).code
        if (code === 'EADDRINUSE') throw new AppError(400, 400, `port ${port} is already in use on ${host}`, ['port'])
        if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAFNOSUPPORT') throw new AppError(400, 400, `${host} is not an address of this machine`, ['host'])
        if (code === 'EACCES') throw new AppError(400, 400, `port ${port} needs privileges this app does not have; choose one above 1023`, ['port'])
        throw err
      }
      this.server = server
      this.host = host
      return this.state()
    })
  }

  stop(): Promise<CollectorListenerState> {
    return this.inTurn(async () => {
      await this.close()
      return this.state()
    })
  }

  /** One switch at a time: a second waits for the first. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.switching.then(work, work)
    this.switching = next.catch(() => undefined)
    return next
  }

  private async close(): Promise<void> {
    const server = this.server
    this.server = null
    this.host = null
    if (!server) return
    const grace = setTimeout(() => server.server.closeAllConnections(), STOP_GRACE_MS)
    await server.close()
    clearTimeout(grace)
  }
}
