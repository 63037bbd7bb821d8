import { resolve } from 'node:path'
import vue from '@vitejs/plugin-vue'
import { defineConfig } from 'electron-vite'

const root = import.meta.dirname

/**
 * Our folders follow the processes (src-main, src-renderer) instead of electron-vite's default
 * src/{main,preload,renderer}, so every entry and output is named here.
 */
export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      // package.json "dependencies" (fastify, better-sqlite3, @duckdb/node-api, pino ...) stay
      // external: native modules cannot be bundled and electron-builder ships node_modules anyway
      externalizeDeps: true,
      rolldownOptions: {
        // the threads (the collector's decoders: decodePool.ts; the funnels' path following:
        // funnelThreads.ts) load these files beside index.js
        input: {
          index: resolve(root, 'src-main/main.ts'),
          uploadDecodeWorker: resolve(root, 'src-main/domain/ingest/uploadDecodeWorker.ts'),
          funnelThread: resolve(root, 'src-main/domain/analysis/funnelThread.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // a sandboxed preload cannot load node_modules or ES modules: one self-contained CommonJS file
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'src-main/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'src-renderer'),
    plugins: [vue()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      // the web UI is loaded over HTTP in a browser too: ship it minified
      minify: true,
      rolldownOptions: {
        input: { index: resolve(root, 'src-renderer/index.html') },
      },
    },
  },
})
