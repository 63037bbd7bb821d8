import { encodePart, type Fuzzer, type FuzzRequest, type Operation, type Schema } from './fuzz'

/** Credentials the fuzzer sends: valid ones, as the operation's security asks. */
export interface FuzzCredentials {
  xtoken: string
  appKey: string
  token: string
}

const ODD_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data',
  'application/json; charset=utf-16',
  'APPLICATION/JSON',
  'application/json-patch+json',
  '',
]

function securityHeaders(op: Schema, creds: FuzzCredentials): Record<string, string> {
  const schemes = (op.security ?? []).flatMap((s: Record<string, unknown>) => Object.keys(s))
  const headers: Record<string, string> = {}
  if (schemes.includes('xtoken')) headers.xtoken = creds.xtoken
  if (schemes.includes('appKey')) Object.assign(headers, { appKey: creds.appKey, token: creds.token })
  return headers
}

function pathValue(f: Fuzzer, name: string, schema: Schema, creds: FuzzCredentials): { text: string; note?: string } {
  if (f.chance(0.25)) {
    const odd = f.pick(['-1', '0', '1.5', 'abc', 'x'.repeat(101), '9'.repeat(120), '%00', ' ', '..', '😀', '\uD800', 'x'.repeat(4000)])
    return { text: odd, note: `path ${name}=${JSON.stringify(odd.slice(0, 20))}` }
  }
  if (name === 'appKey' && f.chance(0.7)) return { text: creds.appKey }
  // an empty segment would address another operation (/jobs/ is the list of jobs)
  return { text: String(f.valid(schema)) || ' ' }
}

function queryPart(f: Fuzzer, params: Schema[]): { parts: string[]; notes: string[] } {
  const parts: string[] = []
  const notes: string[] = []
  for (const p of params) {
    if (!p.required && f.chance(0.5)) continue
    if (p.required && f.chance(0.1)) {
      notes.push(`query ${p.name} left out`)
      continue
    }
    let value = f.valid(p.schema)
    if (f.chance(0.2)) {
      value = f.oddString()
      notes.push(`query ${p.name} odd`)
    }
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    parts.push(`${encodePart(p.name)}=${encodePart(text)}`)
    if (f.chance(0.05)) {
      parts.push(`${encodePart(p.name)}=${encodePart(text)}`)
      notes.push(`query ${p.name} twice`)
    }
  }
  if (f.chance(0.1)) {
    parts.push(`unknownParam=${encodePart(f.oddString())}`)
    notes.push('unknown query parameter')
  }
  return { parts, notes }
}

/** A multipart body by hand: the schema's text fields and a small file with random lines. */
function multipart(f: Fuzzer, schema: Schema | undefined): { type: string; body: Uint8Array; note: string } {
  const boundary = `fuzz${f.int(1e9)}`
  const lines: string[] = []
  for (const [name, sub] of Object.entries<Schema>(schema?.properties ?? {})) {
    if (sub.format === 'binary' || f.chance(0.3)) continue
    const value = f.valid(sub)
    lines.push(`--${boundary}`, `Content-Disposition: form-data; name="${name}"`, '', typeof value === 'string' ? value : JSON.stringify(value))
  }
  const content = f.pick([
    'xwho,xwhat,xwhen\nu1,pay,2024-01-02 10:00:00\n',
    'value\nu1\nu2\n',
    '',
    '{"xwho":"u1","xwhat":"pay","xwhen":1704189600000}\n',
    '\u0000\u0001\u0002binary',
    `${f.oddString()}\n${f.oddString()}`,
  ])
  if (f.chance(0.85)) {
    const filename = f.pick(['data.csv', 'data.json', 'x.xlsx', 'a.parquet', '../../evil.csv', 'noext', 'e\u0301.tsv'])
    lines.push(`--${boundary}`, `Content-Disposition: form-data; name="file"; filename="${filename}"`, 'Content-Type: application/octet-stream', '', content)
  }
  const cut = f.chance(0.1)
  const text = lines.join('\r\n') + (cut ? '' : `\r\n--${boundary}--\r\n`)
  return { type: `multipart/form-data; boundary=${boundary}`, body: new TextEncoder().encode(text), note: cut ? 'multipart cut short' : 'multipart' }
}

/** One request for `operation`: valid credentials, and most often one thing wrong. */
export function fuzzRequest(f: Fuzzer, operation: Operation, creds: FuzzCredentials): FuzzRequest {
  const { op } = operation
  const notes: string[] = []
  const headers = securityHeaders(op, creds)
  const params: Schema[] = op.parameters ?? []
  let path = operation.path
  for (const p of params.filter((q) => q.in === 'path')) {
    const { text, note } = pathValue(f, p.name, p.schema ?? {}, creds)
    if (note) notes.push(note)
    path = path.replace(`{${p.name}}`, encodePart(text))
  }
  const query = queryPart(f, params.filter((q) => q.in === 'query'))
  notes.push(...query.notes)
  const url = query.parts.length ? `${path}?${query.parts.join('&')}` : path

  const content: Record<string, Schema> = op.requestBody?.content ?? {}
  const jsonSchema = content['application/json']?.schema
  const takesBody = Object.keys(content).length > 0
  let body: string | Uint8Array | undefined
  const mode = takesBody ? f.int(10) : f.int(12)
  if (content['multipart/form-data'] && (mode < 3 || !jsonSchema)) {
    const m = multipart(f, content['multipart/form-data'].schema)
    headers['content-type'] = m.type
    body = m.body
    notes.push(m.note)
  } else if (mode === 9 || mode === 10) {
    // an odd content type, with a body that may or may not be JSON
    const type = f.pick(ODD_TYPES)
    if (type) headers['content-type'] = type
    body = f.chance(0.5) ? JSON.stringify(f.valid(jsonSchema)) : f.oddString()
    notes.push(`content-type ${JSON.stringify(type)}`)
  } else if (mode === 8) {
    headers['content-type'] = 'application/json'
    body = f.pick(['', ' ', 'null', '[]', '{', '{"a":}', '"text"', '0', '\u0000', '{"a":1}{"b":2}', '\uFEFF{}'])
    notes.push(`raw body ${JSON.stringify(body)}`)
  } else if (takesBody || mode === 11) {
    const value = f.valid(jsonSchema)
    const spoiled = mode < 2 ? { value, note: 'valid body' } : f.mutate(value, jsonSchema)
    headers['content-type'] = 'application/json'
    body = JSON.stringify(spoiled.value)
    notes.push(spoiled.note)
  }
  return { method: operation.method.toUpperCase(), url, headers, body, note: notes.join('; ') || 'valid' }
}
