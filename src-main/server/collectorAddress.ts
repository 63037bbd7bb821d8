import { networkInterfaces } from 'node:os'

/**
 * `--collector-listen HOST:PORT` (IPv6 in brackets: [::]:8106), and the addresses a phone on the
 * LAN can put into its SDK when the collector listens on every interface.
 */
export function parseCollectorListen(text: string): { host: string; port: number } {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]\s]+):(\d{1,5})$/.exec(text.trim())
  const port = match ? Number(match[2]) : NaN
  if (!match || port > 65535) throw new Error(`--collector-listen must be HOST:PORT (e.g. 0.0.0.0:8106 or [::]:8106), not ${text}`)
  return { host: match[1].replace(/^\[|\]$/g, ''), port }
}

/** The collector's /up addresses on this machine's LAN interfaces (IPv4), for a wildcard host. */
export function lanCollectorUrls(host: string, port: number): string[] {
  const wildcard = host === '0.0.0.0' || host === '::'
  if (!wildcard) return [`http://${host.includes(':') ? `[${host}]` : host}:${port}/up`]
  return Object.values(networkInterfaces())
    .flat()
    .filter((nic) => nic && nic.family === 'IPv4' && !nic.internal)
    .map((nic) => `http://${nic!.address}:${port}/up`)
}
