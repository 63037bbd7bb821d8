/** Small helpers for SQL that the importers generate from checked names only. */

/** A SQL string literal. Used for file paths and checked ids, never for values (those are bound). */
export function literal(text: string): string {
  return `'${text.replace(/'/g, "''")}'`
}

/** A quoted identifier for a column name that came from a file header. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
