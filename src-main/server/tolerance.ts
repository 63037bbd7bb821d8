import type { FastifyInstance, FastifyRequest } from 'fastify'
import { collectIgnored } from '../domain/ignored'

/**
 * What the platform's server (a Java web application) accepts, tools written for it send; so
 * before a body is validated against its route schema:
 * - a field the schema does not know (where it lists its fields) is dropped and logged at debug
 *   level, never a 400;
 * - a number sent as a decimal string ("6") is read as a number, a number sent where a string is
 *   expected as its text, "true"/"false" as booleans, where the schema's type is that one kind;
 * - an enum of upper-case words takes its values in any letter case ("day" is DAY);
 * - a bare POST (no body, or an empty one) is {} where the body has no required field.
 * A value of the wrong kind ("soon" for a number, an unknown enum value) still fails validation
 * and is a 400 naming the parameter. Bodies the schemas leave open (the analyses) get the same
 * rules in the domain.
 */

type Schema = Record<string, unknown>

const DECIMAL = /^\s*-?\d+(\.\d+)?\s*$/
const UPPER_WORD = /^[A-Z][A-Z0-9_]*$/

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** The one kind of value a schema takes besides null, or undefined when it takes several or none. */
function kindOf(schema: Schema): string | undefined {
  const type = schema.type
  if (typeof type === 'string') return type
  if (Array.isArray(type)) {
    const kinds = type.filter((t) => t !== 'null')
    return kinds.length === 1 ? kinds[0] : undefined
  }
  return undefined
}

function scalar(schema: Schema, value: unknown): unknown {
  const kind = kindOf(schema)
  if ((kind === 'number' || kind === 'integer') && typeof value === 'string' && DECIMAL.test(value)) return Number(value)
  if (kind === 'string' && typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (kind === 'boolean' && (value === 'true' || value === 'false')) return value === 'true'
  if (typeof value === 'string' && Array.isArray(schema.enum) && schema.enum.length > 0 && schema.enum.every((v) => typeof v === 'string' && UPPER_WORD.test(v))) {
    const upper = value.toUpperCase()
    if (schema.enum.includes(upper)) return upper
  }
  return value
}

/** The value read leniently along `schema`; unknown fields are removed and their names pushed to `ignored`. */
export function tolerate(schema: unknown, value: unknown, path: string, ignored: string[]): unknown {
  if (!isObject(schema) || value === undefined) return value
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined
  if (Array.isArray(branches)) {
    // one branch of the value's own kind: read along it
    const fitting = branches.filter((b) => (isObject(value) ? kindOf(b) === 'object' : Array.isArray(value) ? kindOf(b) === 'array' : false))
    return fitting.length === 1 ? tolerate(fitting[0], value, path, ignored) : value
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {}
    for (const key of Object.keys(value)) {
      const name = path ? `${path}.${key}` : key
      if (Object.hasOwn(properties, key)) value[key] = tolerate(properties[key], value[key], name, ignored)
      else if (schema.additionalProperties === false) {
        delete value[key]
        ignored.push(name)
      } else if (isObject(schema.additionalProperties)) value[key] = tolerate(schema.additionalProperties, value[key], name, ignored)
    }
    return value
  }
  if (Array.isArray(value)) {
    if (isObject(schema.items)) return value.map((v, i) => tolerate(schema.items, v, `${path}[${i}]`, ignored))
    return value
  }
  return scalar(schema, value)
}

/**
 * A body schema as /openapi.json publishes it: a copy without `additionalProperties: false`, as
 * fields a schema does not list are accepted (and ignored).
 */
export function publishedBody(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(publishedBody)
  if (!isObject(schema)) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue
    // a map's values (properties, patternProperties) and everything under them
    out[key] = publishedBody(value)
  }
  return out
}

function bodySchemaOf(request: FastifyRequest): Schema | undefined {
  const schema = request.routeOptions.schema?.body
  return isObject(schema) ? schema : undefined
}

const IGNORED = Symbol('ignored request fields')

/** Installs the lenient reading of bodies and the debug log of the fields passed over. */
export function installTolerance(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const ignored: string[] = []
    ;(request as unknown as Record<symbol, string[]>)[IGNORED] = ignored
    const schema = bodySchemaOf(request)
    const multipart = (request.headers['content-type'] ?? '').toLowerCase().startsWith('multipart/')
    if (schema && !multipart && request.routeOptions.config?.collector !== true) {
      const required = Array.isArray(schema.required) ? schema.required : []
      if (request.body === undefined && required.length === 0 && kindOf(schema) === 'object') request.body = {}
      request.body = tolerate(schema, request.body, '', ignored)
    }
    // the domain notes the fields it passes over in the same list
    collectIgnored(ignored, done)
  })
  app.addHook('onResponse', async (request) => {
    const ignored = (request as unknown as Record<symbol, string[] | undefined>)[IGNORED]
    if (ignored && ignored.length > 0) request.log.debug({ ignored }, 'unknown request fields ignored')
  })
}
