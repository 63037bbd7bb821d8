import type { LoadsPart } from '../../parts/loads'

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`
const PROBLEM = 'STRUCT(property VARCHAR, value VARCHAR, reason VARCHAR)'

export const loads: LoadsPart = {
  problem: (property, value, reason) => `struct_pack(property := ${literal(property)}, value := ${value}, reason := ${literal(reason)})`,
  noProblem: () => `NULL::${PROBLEM}`,
  problemList: (problems) => `list_filter([${problems.join(', ')}], x -> x IS NOT NULL)`,
  noProblems: () => `NULL::${PROBLEM}[]`,
  problemField: (problem, field) => `${problem}.${field}`,
  anyTrue: (condition) => `bool_or(${condition})`,
  lastPresent: (value, order) => `arg_max(${value}, (${order.join(', ')})) FILTER (WHERE ${value} IS NOT NULL)`,
  firstPresent: (value, order) => `arg_min(${value}, (${order.join(', ')})) FILTER (WHERE ${value} IS NOT NULL)`,
  joinListsInOrder: (list, order) => `flatten(list(${list} ORDER BY ${order.join(', ')}) FILTER (WHERE ${list} IS NOT NULL))`,
  appendList: (list, more) => `list_concat(${list}, ${more})`,
  emptyList: () => '[]',
  renameTable: (from, to) => `ALTER TABLE ${from} RENAME TO ${to}`,
  // a checkpoint is refused while another connection has a transaction open: the caller ignores that
  compact: () => 'CHECKPOINT',
  // the running statement's percent (Warehouse.progress), not printed to the console
  reportProgress: () => ['SET enable_progress_bar = true', 'SET enable_progress_bar_print = false'],
}
