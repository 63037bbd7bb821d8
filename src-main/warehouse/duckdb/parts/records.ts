import type { JsonKind, RecordsPart } from '../../parts/records'
import { DUCK_TYPES } from './names'

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`
/** A JSON path to a member: the first step plain, the keys under it quoted. */
const path = (steps: string[]) => literal(['$', steps[0], ...steps.slice(1).map((k) => `"${k}"`)].join('.'))

const KINDS: Record<JsonKind, string> = { object: "'OBJECT'", array: "'ARRAY'", string: "'VARCHAR'", null: "'NULL'" }

/** DuckDB's JSON functions over the staged lines; `try(...)` turns a line that is not JSON into NULL. */
export const records: RecordsPart = {
  // trim() copies the line: only lines not starting with { pay for it
  notBlank: (line) => `CASE WHEN starts_with(${line}, '{') THEN true ELSE trim(${line}) <> '' END`,
  startsWith: (text, prefix) => `starts_with(${text}, ${prefix})`,
  matches: (text, pattern) => `regexp_full_match(${text}, ${pattern})`,
  includes: (list, item) => `list_contains(${list}, ${item})`,
  firstWhere: (list, test) => `list_filter(${list}, x -> ${test('x')})[1]`,
  tryCast: (expr, type) => `TRY_CAST(${expr} AS ${DUCK_TYPES[type]})`,
  epochMillisText: (text) => `to_timestamp(TRY_CAST(${text} AS BIGINT) / 1000.0)`,
  jsonMember: (line, member) => `CAST(try(${line}->${path([member])}) AS VARCHAR)`,
  jsonKeys: (line, member) => `try(json_keys(${line}, ${path([member])}))`,
  jsonMembers: (line, member, keys) => `try(json_extract(${line}, [${keys.map((k) => path([member, k])).join(', ')}]))`,
  listItem: (list, i) => `${list}[${i}]`,
  jsonMemberString: (line, steps) => `try(json_extract_string(${line}, ${path(steps)}))`,
  jsonKindOf: (json) => `json_type(${json})`,
  jsonKindOfText: (text) => `json_type(TRY_CAST(${text} AS JSON))`,
  jsonMemberKind: (line, member) => `try(json_type(${line}, ${path([member])}))`,
  jsonKindName: (kind) => KINDS[kind],
  jsonString: (json) => `CAST(${json} AS JSON)->>'$'`,
  parseRecord(line, top, member, keys) {
    const shape = JSON.stringify({ ...Object.fromEntries(top.map((t) => [t, 'JSON'])), [member]: Object.fromEntries(keys.map((k) => [k, 'JSON'])) })
    return `try(from_json(${line}, ${literal(shape)}))`
  },
  recordField: (parsed, name) => `${parsed}.${name}`,
  // a struct's fields are found by name case-insensitively: "name" would read the "NAME" field
  recordMember: (parsed, member, at) => `struct_extract_at(${parsed}.${member}, ${at})`,
  asJsonText: (json) => `CAST(${json} AS VARCHAR)`,
}
