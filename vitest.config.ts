import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for what a page or server shows next: on a loaded machine (CI, two files at
    // a time) a round trip can take longer than vitest's default second; a value that never comes
    // still fails, after this long
    expect: { poll: { timeout: 30_000 } },
    // each file starts its own server over its own temp folder; two cores, so two at a time
    maxWorkers: 2,
  },
})
