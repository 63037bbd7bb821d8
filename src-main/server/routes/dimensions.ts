import type { FastifyInstance } from 'fastify'
import type { DomainContext } from '../../domain/context'

/** Dimension tables (spec 4.8). */
export default async function dimensionRoutes(_app: FastifyInstance, _ctx: DomainContext): Promise<void> {}
