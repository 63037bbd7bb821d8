import { badParam } from '../errors'

/**
 * Formulas between the measures of an event analysis: "A/B", "(A-B)*100", "A/B*100". Measures are
 * lettered in request order (A the first); numbers, + - * /, unary minus and parentheses, with
 * the usual precedence. Parsed here into a tree, never evaluated as code. A period where a measure
 * has no value (null), or where a division's divisor is 0, gives null: there is no ratio to draw.
 */

export const MAX_FORMULA_LENGTH = 200

export type Formula =
  | { kind: 'number'; value: number }
  | { kind: 'measure'; index: number }
  | { kind: 'negate'; operand: Formula }
  | { kind: 'binary'; op: '+' | '-' | '*' | '/'; left: Formula; right: Formula }

type Token = { kind: 'number'; value: number; at: number } | { kind: 'letter'; index: number; at: number } | { kind: 'symbol'; text: string; at: number }

function refuse(message: string): never {
  throw badParam('formula', `formula: ${message}`)
}

function tokens(text: string, measures: number): Token[] {
  const out: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === ' ' || c === '\t') {
      i++
    } else if (/[0-9.]/.test(c)) {
      const match = /^(\d+(\.\d+)?|\.\d+)/.exec(text.slice(i))
      if (!match) refuse(`"${c}" at position ${i + 1} does not start a number`)
      out.push({ kind: 'number', value: Number(match[0]), at: i })
      i += match[0].length
    } else if (/[A-Za-z]/.test(c)) {
      if (i + 1 < text.length && /[A-Za-z0-9_]/.test(text[i + 1])) refuse(`measures are single letters A to ${String.fromCharCode(64 + Math.min(measures, 26))}; "${text.slice(i).match(/^\w+/)![0]}" is not one`)
      const index = c.toUpperCase().charCodeAt(0) - 65
      if (index >= measures) refuse(`${c.toUpperCase()} names no measure: there ${measures === 1 ? 'is 1 measure (A)' : `are ${measures} measures (A to ${String.fromCharCode(64 + measures)})`}`)
      out.push({ kind: 'letter', index, at: i })
      i++
    } else if ('+-*/()'.includes(c)) {
      out.push({ kind: 'symbol', text: c, at: i })
      i++
    } else {
      refuse(`"${c}" at position ${i + 1} is not allowed (letters, numbers, + - * / and parentheses)`)
    }
  }
  return out
}

/** Parses a formula over `measures` lettered measures; anything else is a 400 naming formula. */
export function parseFormula(raw: unknown, measures: number): Formula {
  if (typeof raw !== 'string') refuse('must be text such as "A/B"')
  if (raw.length > MAX_FORMULA_LENGTH) refuse(`at most ${MAX_FORMULA_LENGTH} characters`)
  if (raw.trim() === '') refuse('is empty')
  const list = tokens(raw, measures)
  let pos = 0
  const peek = (): Token | undefined => list[pos]
  const isSymbol = (t: Token | undefined, s: string): boolean => t?.kind === 'symbol' && t.text === s
  const where = (t: Token | undefined): string => (t ? `at position ${t.at + 1}` : 'at the end')

  // expression := term (('+' | '-') term)*; term := factor (('*' | '/') factor)*
  function expression(depth: number): Formula {
    let left = term(depth)
    while (isSymbol(peek(), '+') || isSymbol(peek(), '-')) {
      const op = (list[pos++] as { text: '+' | '-' }).text
      left = { kind: 'binary', op, left, right: term(depth) }
    }
    return left
  }
  function term(depth: number): Formula {
    let left = factor(depth)
    while (isSymbol(peek(), '*') || isSymbol(peek(), '/')) {
      const op = (list[pos++] as { text: '*' | '/' }).text
      left = { kind: 'binary', op, left, right: factor(depth) }
    }
    return left
  }
  function factor(depth: number): Formula {
    if (depth > 50) refuse('nests too deep')
    const t = list[pos++]
    if (t?.kind === 'number') return { kind: 'number', value: t.value }
    if (t?.kind === 'letter') return { kind: 'measure', index: t.index }
    if (isSymbol(t, '-')) return { kind: 'negate', operand: factor(depth + 1) }
    if (isSymbol(t, '(')) {
      const inner = expression(depth + 1)
      if (!isSymbol(list[pos], ')')) refuse(`a ")" is missing ${where(list[pos])}`)
      pos++
      return inner
    }
    return refuse(`a measure letter, a number or "(" was expected ${where(t)}`)
  }

  const tree = expression(0)
  if (pos < list.length) refuse(`unexpected "${raw.slice(list[pos].at).trim().slice(0, 10)}" ${where(list[pos])}`)
  return tree
}

/** The formula's value for one set of measure values; null when a value is missing or a divisor is 0. */
export function evaluate(f: Formula, values: (number | null)[]): number | null {
  switch (f.kind) {
    case 'number':
      return f.value
    case 'measure':
      return values[f.index] ?? null
    case 'negate': {
      const v = evaluate(f.operand, values)
      return v === null ? null : -v
    }
    default: {
      const a = evaluate(f.left, values)
      const b = evaluate(f.right, values)
      if (a === null || b === null) return null
      if (f.op === '/' && b === 0) return null
      const v = f.op === '+' ? a + b : f.op === '-' ? a - b : f.op === '*' ? a * b : a / b
      return Number.isFinite(v) ? v : null
    }
  }
}

/** The formula as text, normalised: upper-case letters, no spaces ("a / b" -> "A/B"). */
export function formulaText(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase()
}
