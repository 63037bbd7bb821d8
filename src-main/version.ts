import pkg from '../package.json' with { type: 'json' }

/** The product version, reported as each project's `version`. */
export const version: string = pkg.version
