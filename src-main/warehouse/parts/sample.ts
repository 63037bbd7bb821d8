/** Sampling: stable samples of users, and quick samples of a table's rows. */
export interface SamplePart {
  /**
   * Whether the user `id` belongs to a stable sample of `factor` (0..1] of all users: the same
   * users every time (a hash of the id); `true` for 1.
   */
  userSample(factor: number, id: string): string
  /** The clause after a table name that reads about `percent` % of its rows ('' for 100). */
  tableSample(percent: number): string
}
