import { createServer, type AddressInfo } from 'node:net'

/** The error the promise rejects with; fails when it resolves. */
export async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p
  } catch (e) {
    return e as Error
  }
  throw new Error('expected a failure')
}

/** A loopback port nobody listens on (bound, then released): a server there is down. */
export async function closedPort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))
  const port = (srv.address() as AddressInfo).port
  await new Promise((r) => srv.close(r))
  return port
}
