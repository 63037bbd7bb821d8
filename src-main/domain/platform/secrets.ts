import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto'

/** A random token of `bytes` bytes as hex (the default, 20 bytes, is 160 bits). */
export function newToken(bytes = 20): string {
  return randomBytes(bytes).toString('hex')
}

/**
 * Compares a presented secret with the stored one in constant time. Both are hashed first so that
 * neither their contents nor their lengths leak through timing.
 */
export function sameSecret(presented: string | undefined, stored: string): boolean {
  if (typeof presented !== 'string' || presented.length === 0) return false
  const a = createHash('sha256').update(presented).digest()
  const b = createHash('sha256').update(stored).digest()
  return timingSafeEqual(a, b)
}

/** A salted scrypt hash, stored as `scrypt$<salt>$<hash>`; the password itself is never kept. */
export function hashPassword(password: string): string {
  const salt = randomBytes(16)
  const hash = scryptSync(password, salt, 32)
  return `scrypt$${salt.toString('hex')}$${hash.toString('hex')}`
}

export function verifyPassword(password: string, stored: string): boolean {
  const [scheme, saltHex, hashHex] = stored.split('$')
  if (scheme !== 'scrypt' || !saltHex || !hashHex) return false
  const hash = scryptSync(password, Buffer.from(saltHex, 'hex'), 32)
  return timingSafeEqual(hash, Buffer.from(hashHex, 'hex'))
}
