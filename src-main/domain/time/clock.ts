/** "Now" for relative times and reportUpdateTime; tests fix it. */
let now: () => number = () => Date.now()

export function currentTime(): number {
  return now()
}

/** For tests: fixes the clock (or restores the real one with no argument). */
export function setClock(fixed?: number): void {
  now = fixed === undefined ? () => Date.now() : () => fixed
}
