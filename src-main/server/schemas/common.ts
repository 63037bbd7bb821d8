/** JSON schemas shared by the routes; the same objects produce /openapi.json. */

export const errorSchema = {
  $id: 'Error',
  type: 'object',
  description: 'Body of every non-200 answer (spec part 7). For 400, `data` lists the offending parameters.',
  required: ['code', 'msg', 'data'],
  properties: {
    code: { type: 'integer', description: 'HTTP status, or inside a 501: 501 quota, 50101 exists, 50102 exists but disabled, 50103 engine resources, 50104 concurrency.' },
    msg: { type: 'string' },
    data: { description: 'For 400: the offending parameter names, e.g. ["users[0].email"]. Otherwise null.' },
  },
} as const

export const errorRef = { $ref: 'Error#' } as const

export const successSchema = {
  type: 'object',
  required: ['success'],
  properties: { success: { type: 'integer', enum: [0], description: '0: accepted.' } },
} as const

export const errorDescriptions: Record<number, string> = {
  400: 'Bad request: a parameter is missing or wrong, an object does not exist, or the method is not supported.',
  401: 'Missing or wrong credentials.',
  415: 'The body is not JSON, or the Content-Type is not application/json.',
  501: 'Not completed: quota reached (code 501), object exists (50101), exists but disabled (50102).',
  503: 'The query engine or a database is unavailable.',
}

/** The response map of a route: its 200 schema plus the error answers it can give. */
export function responses(ok: object, errors: number[] = [400, 401]): Record<string, object> {
  const out: Record<string, object> = { 200: ok }
  for (const status of errors) out[status] = { ...errorRef, description: errorDescriptions[status] }
  return out
}

export const loginUserQuery = {
  loginUser: {
    type: 'string',
    description: 'E-mail of the operating account (part 1 rule 3). Must be a registered, enabled account; recorded as the operator. Without it the API itself is the operator.',
  },
} as const

export const projectSecurity = [{ appKey: [], token: [] }]
export const platformSecurity = [{ xtoken: [] }]

/**
 * An answer object as the server always sends it: every listed field present, no other, except
 * those named `optional`. The generated contract (src-shared/api.ts) then types the fields as
 * required, which is what lets the domain and the renderer use it. For answers only: request
 * bodies stay open to fields they do not list.
 */
export function exact<S extends { properties: Record<string, unknown> }>(schema: S, optional: readonly string[] = []): S & { additionalProperties: false; required: string[] } {
  return { ...schema, additionalProperties: false, required: Object.keys(schema.properties).filter((k) => !optional.includes(k)) }
}
