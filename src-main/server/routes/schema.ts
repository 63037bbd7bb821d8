import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'

/** Tracking plan (spec 4.3) and metadata with virtual events (spec 4.4). */
export default async function schemaRoutes(_app: FastifyInstance, _ctx: DomainContext): Promise<void> {}
