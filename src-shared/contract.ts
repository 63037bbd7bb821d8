import type { paths } from './api'

/**
 * Picks the API's types out of the generated src-shared/api.ts by path and method, so the domain
 * and the renderer name a request or an answer as the route schemas describe it:
 * `Answer<'/uba/api/import/jobs/{id}'>`, `RequestBody<'/uba/api/funnels/analyze'>`.
 */

export type { paths }

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch'
type Json<C> = C extends { content: { 'application/json': infer T } } ? T : never
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>

/** The JSON body of a 200 answer. */
export type Answer<P extends keyof paths, M extends Method = 'get'> = Operation<P, M> extends { responses: { 200: infer R } } ? Json<R> : never

/** One line of a streamed JSON-lines 200 answer: its schema describes a line (application/x-ndjson). */
export type StreamLine<P extends keyof paths, M extends Method = 'get'> = Operation<P, M> extends { responses: { 200: { content: { 'application/x-ndjson': infer T } } } } ? T : never

/** The JSON request body. */
export type RequestBody<P extends keyof paths, M extends Method = 'post'> = Operation<P, M> extends { requestBody?: infer B } ? Json<NonNullable<B>> : never

/** The query parameters. */
export type Query<P extends keyof paths, M extends Method = 'get'> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never

/** What an analysis computes: its answer without the fields the runner adds (when, and with explain the SQL). */
export type AnalysisAnswer<P extends keyof paths> = Omit<Answer<P, 'post'>, 'reportUpdateTime' | 'sql'>
