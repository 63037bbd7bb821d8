#!/usr/bin/env node
// The uba-desk command: runs the TypeScript sources through tsx, so the CLI is always the code
// of this checkout.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../src-main/cli.ts')
main(process.argv.slice(2)).catch((err) => {
  console.error(`uba-desk: ${err.message}`)
  process.exit(1)
})
