import { engineUnavailable } from '../../../errors'
import type { FilesPart } from '../../parts/files'
import type { GeneratorPart } from '../../parts/generator'
import type { ImportsPart } from '../../parts/imports'
import type { LoadsPart } from '../../parts/loads'
import type { RecordsPart } from '../../parts/records'
import type { TypedReadsPart } from '../../parts/typedReads'

/**
 * The parts a ClickHouse project cannot use yet: reading SDK records, writing loads, importing files and
 * generating sample data (the collector, imports and sample data; issue 22 moves them). Every method refuses with a 503 that
 * says so, rather than printing DuckDB text that ClickHouse would reject half-way through a write. The files part
 * stays here for good: DuckDB reads the files of every project, a ClickHouse one's included.
 */
const METHODS = [
  'notBlank', 'startsWith', 'matches', 'includes', 'firstWhere', 'tryCast', 'epochMillisText', 'jsonMember', 'jsonKeys', 'jsonMembers', 'listItem',
  'jsonMemberString', 'jsonKindOf', 'jsonKindOfText', 'jsonMemberKind', 'jsonKindName', 'jsonString', 'parseRecord', 'recordField', 'recordMember',
  'asJsonText', 'problem', 'noProblem', 'problemList', 'noProblems', 'problemField', 'anyTrue', 'lastPresent', 'firstPresent', 'joinListsInOrder',
  'appendList', 'emptyList', 'renameTable', 'compact', 'reportProgress',
  'uniform', 'weightedTable', 'pickJoin', 'item', 'epochSeconds', 'instantAt', 'bulkWrite', 'dropTempTable',
  'valuesByIndex', 'formatStampMillis', 'columnsOfTables', 'insertByName', 'tempViewAs',
  'cellKindOf', 'cellText', 'fromCell', 'eventTimeOfCell', 'fromText', 'fromJsonText', 'eventTime', 'dayOfDate', 'jsonTextIsString', 'jsonTextIsNumber',
  'jsonTextIsInteger', 'jsonTextString', 'loadTime',
  'jsonArrayLines', 'fileLines', 'delimitedFile', 'firstRejectedLine', 'rejectedLine', 'parquetFile', 'describeColumns', 'cellAsText', 'tempColumns',
  'insertionOrder', 'defaultInsertionOrder',
] as const

function refusal(name: string): () => never {
  return () => {
    throw engineUnavailable(`loading records into a ClickHouse project is not available in this version (${name})`)
  }
}

export const notYet = Object.fromEntries(METHODS.map((name) => [name, refusal(name)])) as unknown as RecordsPart & LoadsPart & GeneratorPart & ImportsPart & TypedReadsPart & FilesPart
