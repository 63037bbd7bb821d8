import fs from 'node:fs'
import path from 'node:path'
import ts from 'typescript'

/**
 * The import graph of the main process's sources, read the way the bundler reads it: every
 * relative specifier of every .ts file (static, `export … from`, `import type` and dynamic
 * imports alike: a type import ties two layers as much as a value import does).
 */

export interface FileImport {
  from: string // file, relative to the repository root, with forward slashes
  to: string
  line: number
}

const root = path.resolve(import.meta.dirname, '../..')

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) return sourceFiles(p)
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : []
  })
}

function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(fromFile), specifier)
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate
  }
  return undefined
}

const rel = (file: string) => path.relative(root, file).split(path.sep).join('/')

/** Every relative import under `dir` (e.g. 'src-main'); one that resolves to no file is an error. */
export function readImports(dir: string): FileImport[] {
  const out: FileImport[] = []
  for (const file of sourceFiles(path.join(root, dir))) {
    const text = fs.readFileSync(file, 'utf8')
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue
      const target = resolveSpecifier(file, ref.fileName)
      if (!target) throw new Error(`${rel(file)} imports ${ref.fileName}, which is no file`)
      const line = text.slice(0, ref.pos).split('\n').length
      out.push({ from: rel(file), to: rel(target), line })
    }
  }
  return out
}

/** The strongly connected components of more than one folder (Tarjan): each one holds a cycle. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  let next = 0
  const nodes = new Set([...graph.keys(), ...[...graph.values()].flatMap((s) => [...s])])

  const visit = (v: string): void => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w)
      component.push(w)
      if (w === v) break
    }
    if (component.length > 1) found.push(component.sort())
  }
  for (const v of [...nodes].sort()) if (!index.has(v)) visit(v)
  return found
}
