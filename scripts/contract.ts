// `npm run contract`: regenerates src-shared/api.ts from the route schemas (see contract/generate.ts).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { CONTRACT_FILE, generateContract } from './contract/generate'

const text = await generateContract()
mkdirSync(dirname(CONTRACT_FILE), { recursive: true })
writeFileSync(CONTRACT_FILE, text)
process.stdout.write(`wrote ${CONTRACT_FILE} (${text.split('\n').length} lines)\n`)
