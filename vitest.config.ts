import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // each file starts its own server over its own temp folder; two cores, so two at a time
    maxWorkers: 2,
  },
})
