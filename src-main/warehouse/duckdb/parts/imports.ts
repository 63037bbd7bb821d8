import type { ImportsPart } from '../../parts/imports'

export const imports: ImportsPart = {
  valuesByIndex: (values, index, value) => `unnest(generate_series(0, ${values.length - 1})) AS ${index}, unnest([${values.join(', ')}]) AS ${value}`,
  formatStampMillis: (local) => `strftime(${local}, '%Y-%m-%d %H:%M:%S.%g')`,
  columnsOfTables: (tables) => `SELECT table_name, column_name FROM duckdb_columns()
    WHERE database_name = current_database() AND schema_name = 'main' AND table_name IN (${tables.map((t) => `'${t}'`).join(', ')})`,
  insertByName: (table) => `INSERT INTO ${table} BY NAME`,
  tempViewAs: (name, select) => `CREATE OR REPLACE TEMP VIEW ${name} AS ${select}`,
}
