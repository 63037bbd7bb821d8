/** The kinds of JSON value a record's parts are judged by. */
export type JsonKind = 'object' | 'array' | 'string' | 'null'

/**
 * Reading the SDK records (one JSON text per staged line) and checking their keys and values:
 * the collector's and the record imports' parse (domain/ingest/records.ts, norm.ts). `line`,
 * `json` and `text` are SQL expressions of text; `key` and `member` are names the domain checked
 * or read from the records (the dialect quotes them in its paths).
 */
export interface RecordsPart {
  /** Whether a line holds something (not only blanks), cheap for a line that starts with `{`. */
  notBlank(line: string): string
  /** Whether text `text` starts with `prefix` (an SQL text). */
  startsWith(text: string, prefix: string): string
  /** Whether text matches a regular expression (an SQL text) as a whole. */
  matches(text: string, pattern: string): string
  /** Whether a list holds an item. */
  includes(list: string, item: string): string
  /** The first element of a list that passes `test` (given the element's SQL), NULL when none does. */
  firstWhere(list: string, test: (item: string) => string): string
  /** A value converted to a type, NULL when it does not convert (no error). */
  tryCast(expr: string, type: 'number' | 'bigint'): string
  /** The instant of a whole number of milliseconds since the epoch given as text (NULL when not a number). */
  epochMillisText(text: string): string
  /** The JSON text of a line's top-level member, NULL when absent or the line is not JSON. */
  jsonMember(line: string, member: string): string
  /** The keys of a line's object member (a list of texts), NULL when absent, not an object or not JSON. */
  jsonKeys(line: string, member: string): string
  /**
   * The JSON texts of the object member `member`'s keys `keys` (a list in that order, an element
   * NULL where the key is absent); NULL for a line that is not JSON. Element i is `listItem(list, i)`.
   */
  jsonMembers(line: string, member: string, keys: string[]): string
  /** Element `i` (from 1) of a list. */
  listItem(list: string, i: number): string
  /** The string a JSON member holds, unquoted (NULL when absent or not JSON). */
  jsonMemberString(line: string, path: string[]): string
  /** The kind of a JSON text known to be valid JSON, compared with `jsonKindName`. */
  jsonKindOf(json: string): string
  /** The kind of a text's JSON value: NULL when the text is not JSON. */
  jsonKindOfText(text: string): string
  /** The kind of a line's top-level member: NULL when absent or the line is not JSON. */
  jsonMemberKind(line: string, member: string): string
  /** The SQL text of a kind as jsonKindOf and its kin answer it. */
  jsonKindName(kind: JsonKind): string
  /** The string a JSON text (a string value) holds, unquoted. */
  jsonString(json: string): string
  /**
   * A line parsed once into the members a load reads (`top`, then the object member `member`'s
   * `keys`), each held as JSON; NULL for a line that is not a JSON object.
   */
  parseRecord(line: string, top: string[], member: string, keys: string[]): string
  /** A top-level member of a parsed record (JSON; see `asJsonText`). */
  recordField(parsed: string, name: string): string
  /**
   * The `at`-th of the `keys` parseRecord was given (from 1), in the object member of a parsed
   * record (JSON; NULL when absent). By place, not name: keys that differ only in case ("NAME",
   * "name") are distinct members of the record.
   */
  recordMember(parsed: string, member: string, at: number): string
  /** A JSON value as its JSON text. */
  asJsonText(json: string): string
}
