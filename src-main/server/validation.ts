import Ajv, { type ErrorObject } from 'ajv'
import type { FastifySchemaCompiler } from 'fastify'

/**
 * Bodies are validated strictly (a number is not a string) once tolerance.ts has read them as the
 * platform's server would (unknown fields dropped, "6" for a number field read as 6); query
 * strings and paths are text, so their values are coerced to the declared types. `x-rule` on a schema is a human sentence used as
 * the error message when a pattern or length check fails.
 */
function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    verbose: true,
    useDefaults: true,
    coerceTypes: coerce ? 'array' : false,
    removeAdditional: false,
    strict: false,
  })
  ajv.addKeyword({ keyword: 'x-rule', schemaType: 'string' })
  // documentation-only format of file parts in multipart bodies
  ajv.addFormat('binary', true)
  return ajv
}

const bodyAjv = makeAjv(false)
const textAjv = makeAjv(true)

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(schema)

/** The parameter an ajv error is about, written like `users[0].email`. */
export function paramName(err: ErrorObject, part: string | undefined): string {
  const segments = err.instancePath.split('/').filter(Boolean)
  if (err.keyword === 'required') segments.push((err.params as { missingProperty: string }).missingProperty)
  if (err.keyword === 'additionalProperties') segments.push((err.params as { additionalProperty: string }).additionalProperty)
  let name = ''
  for (const s of segments) name += /^\d+$/.test(s) ? `[${s}]` : name ? `.${s}` : s
  if (name) return name
  return part === 'querystring' ? 'query' : (part ?? 'body')
}

function sentence(err: ErrorObject, name: string): string {
  const rule = (err.parentSchema as Record<string, unknown> | undefined)?.['x-rule']
  if (typeof rule === 'string' && ['pattern', 'maxLength', 'minLength', 'format'].includes(err.keyword)) {
    return `${name}: ${rule}`
  }
  if (name === 'body' && err.keyword === 'type') return 'the request body must be a JSON object'
  switch (err.keyword) {
    case 'required':
      return `${name} is required`
    case 'additionalProperties':
      return `${name} is not a known parameter`
    case 'enum':
      return `${name} must be one of ${((err.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`
    default:
      return `${name} ${err.message ?? 'is not valid'}`
  }
}

/** Turns ajv errors into the spec's 400 message and the list of offending parameters. */
export function describeValidation(errors: ErrorObject[], part: string | undefined): { msg: string; params: string[] } {
  const params: string[] = []
  const sentences: string[] = []
  for (const err of errors) {
    // anyOf/oneOf repeat their branches' errors; the branch errors say more
    if (err.keyword === 'anyOf' || err.keyword === 'oneOf' || err.keyword === 'if') continue
    const name = paramName(err, part)
    const text = sentence(err, name)
    if (!params.includes(name)) params.push(name)
    if (!sentences.includes(text)) sentences.push(text)
  }
  return { msg: sentences.join('; ') || 'invalid request', params }
}
