/** Values of one query, bound as $1, $2 ...: nothing from a request is pasted into SQL. */
export class SqlParams {
  readonly values: (string | number | boolean | null)[] = []

  add(value: string | number | boolean | null): string {
    this.values.push(value)
    return `$${this.values.length}`
  }

  list(values: (string | number)[]): string {
    return values.map((v) => this.add(v)).join(', ')
  }
}
