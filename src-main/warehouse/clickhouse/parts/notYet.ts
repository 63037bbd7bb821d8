import { engineUnavailable } from '../../../errors'
import type { FilesPart } from '../../parts/files'
import type { GeneratorPart } from '../../parts/generator'
import type { ImportsPart } from '../../parts/imports'
import type { LoadsPart } from '../../parts/loads'
import type { RecordsPart } from '../../parts/records'
import type { TypedReadsPart } from '../../parts/typedReads'

/**
 * The parts whose text only DuckDB needs: a ClickHouse project's records and files are read,
 * checked and loaded on a local DuckDB database (the collector, imports, previews and sample data:
 * warehouse/loading, docs/clickhouse.md "Loading"), whose dialect is DuckDB's, and the result is
 * shipped to ClickHouse. Nothing asks ClickHouse for this text; should anything do, it refuses with
 * a 503 naming the method rather than print DuckDB text that ClickHouse would reject mid-write.
 */
const METHODS = [
  'notBlank', 'startsWith', 'matches', 'includes', 'firstWhere', 'tryCast', 'epochMillisText', 'jsonMember', 'jsonKeys', 'jsonMembers', 'listItem',
  'jsonMemberString', 'jsonKindOf', 'jsonKindOfText', 'jsonMemberKind', 'jsonKindName', 'jsonString', 'parseRecord', 'recordField', 'recordMember',
  'asJsonText', 'problem', 'noProblem', 'problemList', 'noProblems', 'problemField', 'anyTrue', 'lastPresent', 'firstPresent', 'joinListsInOrder',
  'appendList', 'emptyList', 'renameTable', 'reportProgress',
  'uniform', 'weightedTable', 'pickJoin', 'item', 'epochSeconds', 'instantAt', 'bulkWrite', 'dropTempTable',
  'valuesByIndex', 'formatStampMillis', 'columnsOfTables', 'insertByName', 'tempViewAs',
  'cellKindOf', 'cellText', 'fromCell', 'eventTimeOfCell', 'fromText', 'fromJsonText', 'eventTime', 'dayOfDate', 'jsonTextIsString', 'jsonTextIsNumber',
  'jsonTextIsInteger', 'jsonTextString', 'loadTime',
  'jsonArrayLines', 'fileLines', 'delimitedFile', 'firstRejectedLine', 'rejectedLine', 'parquetFile', 'describeColumns', 'cellAsText', 'tempColumns',
  'insertionOrder', 'defaultInsertionOrder',
] as const

function refusal(name: string): () => never {
  return () => {
    throw engineUnavailable(`a ClickHouse project reads and loads records on its local DuckDB loading database, not in ClickHouse SQL (${name})`)
  }
}

export const notYet = Object.fromEntries(METHODS.map((name) => [name, refusal(name)])) as unknown as RecordsPart & LoadsPart & GeneratorPart & ImportsPart & TypedReadsPart & FilesPart

/**
 * What DuckDB folds into its file when a data stream stops or a merge rewrote rows (CHECKPOINT):
 * ClickHouse's writes are in place once committed, so there is nothing to fold (a no-op query).
 */
notYet.compact = () => 'SELECT 1'
