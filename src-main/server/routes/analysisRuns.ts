import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'
import { cancelRun, progressLines, RUN_ID_PATTERN } from '../../domain/analysis/runs'
import { exact, projectSecurity, responses } from '../schemas/common'
import { sendStream } from '../streaming'

interface RunRoute {
  Params: { runId: string }
}

const params = { type: 'object', required: ['runId'], properties: { runId: { type: 'string', pattern: RUN_ID_PATTERN } } } as const

/** One line of the progress stream (the schema of each JSON line, not of the whole body). */
const progressLine = exact(
  {
    type: 'object',
    properties: {
      state: { type: 'string', enum: ['running', 'finished', 'failed', 'cancelled', 'unknown'] },
      progress: { type: 'number', description: 'running lines only: percent of the rows the engine expects to read, -1 while it cannot tell.' },
    },
  } as const,
  ['progress'],
)

const progressAnswer = {
  description: 'Streamed, application/x-ndjson, one JSON object per line (the schema is a line\'s): {"state":"running","progress":p} every 250 ms while the analysis runs (p: percent of the rows the engine expects to read, -1 while it cannot tell; on ClickHouse read from system.processes), then one line {"state":"finished"|"failed"|"cancelled"}; {"state":"unknown"} when no run of that id started within 10 s.',
  content: { 'application/x-ndjson': { schema: progressLine } },
} as const

const cancelled = exact({ type: 'object', properties: { runId: { type: 'string' }, cancelled: { type: 'boolean' } } } as const)

/** Long analyses named by the caller (`runId` on an analysis request): their progress and their cancel. */
export default async function analysisRunRoutes(app: FastifyInstance, ctx: DomainContext): Promise<void> {
  app.get<RunRoute>('/uba/api/analyses/:runId/progress', {
    config: { auth: 'project' },
    schema: {
      tags: ['analysis'],
      summary: 'Progress of a running analysis (streamed)',
      description: 'Streams how far the analysis started with ?runId= is, until it ends. It may be asked before the analysis request arrives: it waits up to 10 s for the run to start. A run stays readable for a minute after its end.',
      security: projectSecurity,
      params,
      response: responses(progressAnswer),
    },
  }, async (request, reply) => sendStream(request, reply, 'application/x-ndjson; charset=utf-8', (signal) => progressLines(ctx, request.project.appKey, request.params.runId, signal)))

  app.delete<RunRoute>('/uba/api/analyses/:runId', {
    config: { auth: 'project' },
    schema: {
      tags: ['analysis'],
      summary: 'Cancel a running analysis',
      description: 'Stops the analysis started with ?runId= (on ClickHouse: KILL QUERY of its queries by their ids): `cancelled` true. The analysis request then answers 503 "the analysis <runId> was cancelled" with data ["runId"], and nothing of it is cached. When no analysis of that id runs in the project, `cancelled` is false: one that ended is left as it is, and one that starts within a minute (its request overtaken by this one) is cancelled as it starts.',
      security: projectSecurity,
      params,
      response: responses(cancelled),
    },
  }, async (request) => ({ runId: request.params.runId, cancelled: cancelRun(ctx, request.project.appKey, request.params.runId) }))
}
