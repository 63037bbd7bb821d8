import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete'
import { PostgreSQL, sql, type SQLNamespace } from '@codemirror/lang-sql'
import type { Extension } from '@codemirror/state'
import type { SqlColumn, SqlTable } from '../../stores/sql'

/**
 * SQL highlighting and completion over the project's tables. The warehouse is DuckDB, whose
 * dialect is PostgreSQL's as far as an editor can tell. Property ids such as $os are not plain
 * SQL names: completions insert them quoted ("$os").
 */

const PLAIN = /^[a-z_][a-z0-9_]*$/

/** A column or table name as SQL needs it written. */
export function quoteName(id: string): string {
  return PLAIN.test(id) ? id : `"${id.replaceAll('"', '""')}"`
}

/** `where` says the table, when several are read. */
function columnOption(column: SqlColumn, where = ''): Completion {
  const named = column.name && column.name !== column.id ? `${column.name} · ` : ''
  return { label: column.id, apply: quoteName(column.id), type: 'property', detail: `${where}${named}${column.dataType}` }
}

/** The known tables a query reads (after FROM or JOIN). */
function tablesRead(text: string, known: Map<string, SqlTable>): SqlTable[] {
  const found = new Set<SqlTable>()
  for (const match of text.matchAll(/\b(?:from|join)\s+"?([A-Za-z_]\w*)"?/gi)) {
    const table = known.get(match[1].toLowerCase())
    if (table) found.add(table)
  }
  return [...found]
}

/**
 * Columns of the tables the query reads, without a table prefix (lang-sql completes them only after
 * `event_vd.`); a started quote ("$o) or a bare $ completes to the quoted name.
 */
function columnsInScope(tables: SqlTable[]): CompletionSource {
  const known = new Map(tables.map((t) => [t.name.toLowerCase(), t]))
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/"?\$?\w*/)
    if (!word || (word.from === word.to && !context.explicit)) return null
    if (context.state.sliceDoc(word.from - 1, word.from) === '.') return null
    const read = tablesRead(context.state.doc.toString(), known)
    if (read.length === 0) return null
    const quoted = word.text.startsWith('"')
    const seen = new Set<string>()
    const options: Completion[] = []
    for (const table of read) {
      for (const column of table.columns) {
        if (seen.has(column.id)) continue
        seen.add(column.id)
        const option = columnOption(column, read.length > 1 ? `${table.name} · ` : '')
        options.push(quoted ? { ...option, label: `"${column.id}"`, apply: `"${column.id.replaceAll('"', '""')}"` } : option)
      }
    }
    // a quote that closeBrackets added after the cursor is part of what the completion replaces
    const to = quoted && context.state.sliceDoc(context.pos, context.pos + 1) === '"' ? context.pos + 1 : context.pos
    return { from: word.from, to, options, validFor: /^"?\$?\w*$/ }
  }
}

/** The SQL language with completion of these tables and their columns. */
export function sqlLanguage(tables: SqlTable[]): Extension {
  const schema: SQLNamespace = Object.fromEntries(
    tables.map((table) => [table.name, { self: { label: table.name, type: 'type', detail: table.label }, children: table.columns.map((c) => columnOption(c)) }]),
  )
  const language = sql({ dialect: PostgreSQL, schema, upperCaseKeywords: true })
  return [language, language.language.data.of({ autocomplete: columnsInScope(tables) })]
}
