import { availableParallelism, totalmem } from 'node:os'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { Background } from './domain/background'
import type { DomainContext } from './domain/context'
import { ensurePlatform } from './domain/platform/bootstrap'
import { projectCredentials, resumeUnfinishedProjects } from './domain/platform/projects'
import { folderId, getSetting, platformToken } from './domain/platform/settings'
import { resumeStreams } from './domain/platform/stream'
import { preparePlansAtStartup } from './domain/schema/plan'
import { clearLitter, settleInterruptedJobs, settleInterruptedUploads } from './domain/ingest/recover'
import { settleInterruptedRuns } from './domain/userSets/recover'
import { startCohortScheduler } from './domain/cohorts/scheduler'
import { closeFunnelThreads } from './domain/analysis/funnelThreads'
import { dataLayout } from './paths'
import { buildServer } from './server'
import { parseCollectorListen } from './server/collectorAddress'
import { CollectorListener } from './server/collectorListener'
import { isLoopbackHost } from './server/security'
import { openMetaDb } from './store/meta'
import { DuckDBWarehouses } from './warehouse/duckdb'
import type { DuckDBWarehouse } from './warehouse/duckdb/connection'
import type { Warehouses } from './warehouse'
import { WarehouseRouter, type RemoteEngine } from './warehouse/router'
import { ClickHouseWarehouse, ClickHouseWarehouses } from './warehouse/clickhouse'
import { LoadingWarehouse } from './warehouse/loading'
import { clickhouseDialect } from './warehouse/clickhouse/dialect'
import { warehouseChoiceOf } from './domain/platform/projectWarehouse'
import { version } from './version'
import { duckdbDialect } from './warehouse/duckdb/dialect'
import { createPrivateFile, privateDir, privateFiles } from './store/private'

export interface Credentials {
  xtoken: string
  projects: { appKey: string; token: string; name: string }[]
}

export interface AppOptions {
  dataDir: string
  host?: string
  /** 0 picks a free port. */
  port?: number
  /** When `port` is taken, listen on a free one instead of failing (the desktop app). */
  anyPortIfTaken?: boolean
  uiDir?: string | null
  extraOrigins?: string[]
  logger?: FastifyBaseLogger
  /** DuckDB threads and memory limit per project database. */
  threads?: number
  memoryLimit?: string
  /** DuckDB's memory limit while a file import runs (1GB; the smaller of this and memoryLimit): beyond it the import spills to disk. */
  importMemoryLimit?: string
  /** A second listener serving the collector (/up) alone, on any address (e.g. 0.0.0.0 for phones on the LAN). */
  collectorListen?: { host: string; port: number }
  /** Folders imports by path may read besides the setting `import.roots` (`serve --import-root`). */
  importRoots?: string[]
  /** Threads following funnel paths; default: UBA_ANALYSIS_THREADS, else one per core. */
  analysisThreads?: number
}

/**
 * The domain's context with the engines it runs on here, for the app's own code and its tests.
 * `warehouse` routes each project to its engine; its connections are typed as DuckDB's too, for
 * the code and tests that reach DuckDB directly, which they do on embedded projects only.
 */
export type AppContext = Omit<DomainContext, 'warehouse'> & { warehouse: Warehouses<DuckDBWarehouse> & WarehouseRouter<DuckDBWarehouse> }

/** The ClickHouse engine projects of the data folder `folder` (its id) may be stored on: the executor (`ClickHouseWarehouses`) and its dialect. */
const clickhouseEngine = (folder: string): RemoteEngine => ({
  open: (options) => new ClickHouseWarehouses({ ...options, folder }),
  dialect: clickhouseDialect,
  // a load runs on a local DuckDB and ships its result (warehouse/loading)
  loading: (local, remote) => LoadingWarehouse.open(local, remote as ClickHouseWarehouse),
})

export interface RunningApp {
  url: string
  port: number
  ctx: AppContext
  server: FastifyInstance
  /** The second listener's /up address (as listened on), while there is one. */
  readonly collectorUrl: string | undefined
  collectorListener: CollectorListener
  credentials(): Credentials
  /** Stops accepting requests, lets running ones finish, then closes both databases. */
  close(): Promise<void>
}

/** DuckDB's memory limit during a file import, by default: with the server's own, under 2 GB of RSS. */
export const IMPORT_MEMORY_LIMIT = '1GB'

/** Opens the data folder's stores and makes sure the platform is ready for use. */
export function openContext(options: Pick<AppOptions, 'dataDir' | 'threads' | 'memoryLimit' | 'importMemoryLimit' | 'importRoots' | 'analysisThreads'>, onError: (err: unknown, what: string) => void): AppContext {
  const layout = dataLayout(options.dataDir)
  privateDir(options.dataDir)
  createPrivateFile(layout.meta)
  const meta = openMetaDb(layout.meta)
  privateFiles(`${layout.meta}-wal`, `${layout.meta}-shm`)
  const embedded = new DuckDBWarehouses({
    dir: layout.projects,
    threads: options.threads ?? availableParallelism(),
    memoryLimit: options.memoryLimit ?? `${Math.max(1, Math.floor((totalmem() * 0.4) / 2 ** 30))}GB`,
    // a 40M-row import held 8.7 GB under the limit above: an import spills instead (issue 23)
    importMemoryLimit: options.importMemoryLimit ?? IMPORT_MEMORY_LIMIT,
  })
  const router = new WarehouseRouter({
    embedded,
    embeddedDialect: duckdbDialect,
    choiceOf: (appKey) => warehouseChoiceOf(meta, appKey),
    clickhouse: clickhouseEngine(folderId(meta)),
    scratch: (appKey, timeZone, work) => embedded.withScratch(appKey, timeZone, work),
  })
  // one object: its connections are DuckDB's on embedded projects (see AppContext)
  const warehouse = router as AppContext['warehouse']
  const analysisThreads = options.analysisThreads ?? (Number(process.env.UBA_ANALYSIS_THREADS) || undefined)
  const ctx: AppContext = { meta, warehouse, background: new Background(onError), version, dataDir: options.dataDir, importRoots: options.importRoots ?? [], analysisThreads }
  ensurePlatform(ctx)
  return ctx
}

export function credentialsOf(ctx: DomainContext): Credentials {
  return { xtoken: platformToken(ctx.meta), projects: projectCredentials(ctx) }
}

/**
 * The collector listener asked for on the command line (its failure stops the start), else the
 * one switched on in Settings last time (its failure is logged: the app starts without it).
 */
async function startCollectorListener(ctx: DomainContext, listener: CollectorListener, asked: AppOptions['collectorListen'], server: FastifyInstance): Promise<void> {
  if (asked) {
    await listener.start(asked.host, asked.port)
    return
  }
  const saved = getSetting(ctx.meta, 'collector.listen')
  if (!saved) return
  try {
    const { host, port } = parseCollectorListen(saved)
    await listener.start(host, port)
  } catch (err) {
    server.log.warn({ err }, `the collector listener on ${saved} could not start`)
  }
}

/** Listens on `port`, or on a free one when it is taken and `anyPortIfTaken` says so. */
async function listen(server: FastifyInstance, host: string, port: number, anyPortIfTaken: boolean): Promise<void> {
  try {
    await server.listen({ host, port })
  } catch (err) {
    if (!anyPortIfTaken || port === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err
    server.log.info(`port ${port} is taken: listening on a free port`)
    await server.listen({ host, port: 0 })
  }
}

/** How long shutdown waits for in-flight requests before it cuts their connections. */
const CLOSE_GRACE_MS = 3000

/** Starts the whole product on loopback: stores, background work, the HTTP API and the web UI. */
export async function startApp(options: AppOptions): Promise<RunningApp> {
  const host = options.host ?? '127.0.0.1'
  if (!isLoopbackHost(host)) throw new Error(`refusing to listen on ${host}: only loopback addresses (127.0.0.1, ::1, localhost) are allowed`)
  let server: FastifyInstance | undefined
  let stopScheduler = () => {}
  const ctx = openContext(options, (err, what) => server?.log.error({ err }, `background work failed: ${what}`))
  const collectorListener = new CollectorListener(ctx, options.logger)
  try {
    server = await buildServer(ctx, { uiDir: options.uiDir ?? null, extraOrigins: options.extraOrigins, logger: options.logger, collectorListener })
    // what a crash left: jobs and uploads settled from what their data holds, staging and upload files
    await settleInterruptedJobs(ctx)
    await settleInterruptedUploads(ctx)
    await settleInterruptedRuns(ctx)
    clearLitter(ctx)
    resumeUnfinishedProjects(ctx)
    resumeStreams(ctx)
    preparePlansAtStartup(ctx)
    await listen(server, host, options.port ?? 0, options.anyPortIfTaken === true)
    await startCollectorListener(ctx, collectorListener, options.collectorListen, server)
    // resumes interrupted cohort and tag computations, catches up missed daily recomputes
    stopScheduler = startCohortScheduler(ctx)
  } catch (err) {
    await collectorListener.stop()
    await server?.close()
    await ctx.background.idle()
    await closeFunnelThreads(ctx)
    await ctx.warehouse.close()
    ctx.meta.close()
    throw err
  }
  const address = server.server.address()
  const port = typeof address === 'object' && address ? address.port : 0
  const urlHost = host === '::1' ? '[::1]' : host
  const running = server
  let closing: Promise<void> | undefined
  return {
    url: `http://${urlHost}:${port}`,
    port,
    ctx,
    server: running,
    get collectorUrl() {
      const { host: at, port: on } = collectorListener.state()
      return at === null ? undefined : `http://${at.includes(':') ? `[${at}]` : at}:${on}/up`
    },
    collectorListener,
    credentials: () => credentialsOf(ctx),
    close: () => {
      closing ??= (async () => {
        stopScheduler()
        // in-flight requests get a moment to finish; a client that stopped reading (a stalled
        // download, an abandoned stream) must not hold the app open, so then every socket is cut
        const grace = setTimeout(() => running.server.closeAllConnections(), CLOSE_GRACE_MS)
        await Promise.all([running.close(), collectorListener.stop()])
        clearTimeout(grace)
        await ctx.background.idle()
        await closeFunnelThreads(ctx)
        await ctx.warehouse.close()
        clearLitter(ctx)
        ctx.meta.close()
      })()
      return closing
    },
  }
}
