import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CONTRACT_FILE, generateContract } from '../../scripts/contract/generate'

/**
 * The route schemas are the one source of the API's types: src-shared/api.ts is generated from
 * them (`npm run contract`) and committed. A schema changed without regenerating fails here, so
 * the domain and the renderer never compile against a contract the server no longer keeps.
 */
describe('the committed API contract', () => {
  it('is what the route schemas generate now (else run npm run contract)', async () => {
    const committed = readFileSync(CONTRACT_FILE, 'utf8')
    const now = await generateContract()
    // a diff of 12,000 lines is no help: name the first line that differs
    const a = committed.split('\n')
    const b = now.split('\n')
    const at = a.findIndex((line, i) => line !== b[i])
    expect(at === -1 && a.length === b.length ? 'same' : `differs at line ${at + 1}: committed ${JSON.stringify(a[at])}, schemas give ${JSON.stringify(b[at])}`).toBe('same')
  }, 120_000)
})
