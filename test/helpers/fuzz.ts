import http from 'node:http'

/**
 * A schema-driven request fuzzer over the server's own /openapi.json: for one operation it builds
 * requests from the operation's parameter and body schemas, mostly valid with one thing wrong
 * (a wrong type, a missing or unknown field, a huge or odd string, a number out of range, an odd
 * content type, an over-long path parameter). Deterministic for a seed; values are bounded so that
 * a valid request stays cheap (small counts, short windows).
 */

export type Schema = Record<string, any>

export interface Operation {
  method: string
  path: string
  op: Schema
}

export interface FuzzRequest {
  method: string
  url: string
  headers: Record<string, string>
  body?: string | Uint8Array
  /** What was done, for the report of a finding. */
  note: string
}

/** mulberry32: small, fast, and the same numbers for the same seed everywhere. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export class Fuzzer {
  constructor(
    private readonly random: () => number,
    /** Words that often mean something to the API (property names, event ids, known values). */
    private readonly words: string[],
  ) {}

  int(n: number): number {
    return Math.floor(this.random() * n)
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]
  }

  chance(p: number): boolean {
    return this.random() < p
  }

  /** Strings a careless or hostile client sends. */
  oddString(): string {
    return this.pick([
      '',
      ' ',
      'x'.repeat(101),
      'x'.repeat(70_000),
      '\u0000',
      'nul\u0000inside',
      '𝓤𝓑𝓐 😀 ﷽ עברית',
      'e\u0301\u0301\u0301',
      '\uD800',
      '../../../../etc/passwd',
      '/etc/passwd',
      "'; DROP TABLE event_vd; --",
      '"quoted"',
      '%s%n%x',
      '${7*7}',
      '<script>alert(1)</script>',
      '-1',
      '0',
      '1e400',
      'NaN',
      'null',
      'true',
      '[]',
      '{}',
      '2024-02-30',
      '9999-12-31',
      '0000-00-00',
      'event.$os',
      'user.',
      '__proto__',
      'constructor',
    ])
  }

  /** Any JSON value that is probably not what a field wants. */
  oddValue(): unknown {
    const k = this.int(16)
    if (k < 6) return this.oddString()
    return this.pick<() => unknown>([
      () => null,
      () => this.pick([-1, 0, -0.5, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, 2147483648]),
      () => this.pick([true, false]),
      () => [],
      () => ({}),
      () => [null, 1, 'a', {}],
      () => Array.from({ length: 2000 }, (_, i) => i),
      () => nest(60),
      () => JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
      () => Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i])),
    ])()
  }

  /** A mostly valid value of `schema`, small and cheap. */
  valid(schema: Schema | undefined, depth = 0): unknown {
    if (!schema || depth > 6) return this.pick(this.words)
    if (schema.const !== undefined) return schema.const
    if (Array.isArray(schema.enum)) return this.pick(schema.enum)
    const branches = schema.anyOf ?? schema.oneOf
    if (Array.isArray(branches)) return this.valid(this.pick(branches), depth + 1)
    if (Array.isArray(schema.examples) && schema.examples.length && this.chance(0.5)) return this.pick(schema.examples)
    if (schema.default !== undefined && this.chance(0.3)) return schema.default
    const types: string[] = Array.isArray(schema.type) ? schema.type.filter((t: string) => t !== 'null') : schema.type ? [schema.type] : []
    const type = types.length ? this.pick(types) : schema.properties ? 'object' : this.pick(['string', 'object', 'array'])
    switch (type) {
      case 'integer':
      case 'number': {
        const min = typeof schema.minimum === 'number' ? schema.minimum : this.pick([0, 1])
        const max = typeof schema.maximum === 'number' ? schema.maximum : min + 30
        const span = Math.min(max - min, 30)
        const n = min + this.int(span + 1)
        return type === 'number' && this.chance(0.3) ? n + 0.5 : n
      }
      case 'boolean':
        return this.chance(0.5)
      case 'array': {
        const count = Math.max(schema.minItems ?? 0, this.int(4))
        return Array.from({ length: Math.min(count, schema.maxItems ?? count) }, () => this.valid(schema.items, depth + 1))
      }
      case 'object':
        return this.object(schema, depth)
      case 'null':
        return null
      default:
        return this.text(schema)
    }
  }

  private text(schema: Schema): string {
    if (schema.format === 'email') return `fuzz${this.int(1000)}@example.com`
    if (schema.format === 'date' || /\\d\{4\}-\\d\{2\}-\\d\{2\}/.test(schema.pattern ?? '')) {
      return `2024-0${1 + this.int(9)}-1${this.int(10)}`
    }
    const word = this.chance(0.7) ? this.pick(this.words) : this.oddString()
    return typeof schema.maxLength === 'number' ? word.slice(0, schema.maxLength) : word
  }

  private object(schema: Schema, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    const props: Record<string, Schema> = schema.properties ?? {}
    const required: string[] = schema.required ?? []
    for (const [name, sub] of Object.entries(props)) {
      if (required.includes(name) || this.chance(0.5)) out[name] = this.valid(sub, depth + 1)
    }
    if (!schema.properties && schema.additionalProperties !== false) {
      // a free-form object (an analysis request): a few known words as keys
      for (let i = this.int(5); i > 0; i--) out[this.pick(this.words)] = this.chance(0.5) ? this.pick(this.words) : this.valid(undefined, depth + 1)
    }
    return out
  }

  /** A valid value with one thing wrong somewhere inside it. */
  mutate(value: unknown, schema: Schema | undefined): { value: unknown; note: string } {
    if (value === null || typeof value !== 'object' || this.chance(0.15)) return { value: this.oddValue(), note: 'whole value odd' }
    const copy: any = structuredClone(value)
    // walk down a random path, then spoil the last step
    let holder: any = copy
    let sub: Schema | undefined = schema
    const path: string[] = []
    for (;;) {
      const keys = Array.isArray(holder) ? holder.map((_: unknown, i: number) => String(i)) : Object.keys(holder)
      if (!keys.length) break
      const key = this.pick(keys)
      const next = holder[key]
      const nextSchema = Array.isArray(holder) ? sub?.items : sub?.properties?.[key]
      if (next !== null && typeof next === 'object' && this.chance(0.6)) {
        holder = next
        sub = nextSchema
        path.push(key)
        continue
      }
      path.push(key)
      const how = this.int(3)
      if (how === 0 && !Array.isArray(holder)) {
        delete holder[key]
        return { value: copy, note: `removed ${path.join('.')}` }
      }
      holder[key] = this.oddValue()
      return { value: copy, note: `odd ${path.join('.')}` }
    }
    if (!Array.isArray(holder)) holder[this.pick(['unknownField', '__proto__', this.pick(this.words)])] = this.oddValue()
    return { value: copy, note: `extra field at ${path.join('.') || 'top'}` }
  }
}

function nest(levels: number): unknown {
  let v: unknown = 'deep'
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v }
  return v
}

/** encodeURIComponent that also takes lone surrogates (as raw invalid UTF-8 bytes). */
export function encodePart(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return '%ED%A0%80'
  }
}

/** Sends one request over node:http (which, unlike fetch, sends a body with GET too). */
export function send(port: number, req: FuzzRequest, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { host: `127.0.0.1:${port}`, ...req.headers }
    if (req.body !== undefined) headers['content-length'] = Buffer.byteLength(req.body)
    const r = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers, timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (d: Buffer) => chunks.push(d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    r.on('timeout', () => r.destroy(new Error(`no answer in ${timeoutMs} ms`)))
    r.on('error', reject)
    r.end(req.body)
  })
}
