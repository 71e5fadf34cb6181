/**
 * A head line whose value repeats from call to call (a status code's reason, a length, a host, a client's
 * address), kept as text for the value it was last made for. A head is a rope of its pieces: a line built
 * anew costs a number turned into text or a concatenation per piece, and a step again when the write
 * flattens the rope (docs/performance.md, stop 33).
 */
export class KeptLine<V extends string | number> {
  private value: V | undefined = undefined;
  private text = '';

  constructor(private readonly prefix: string, private readonly suffix = '\r\n') {}

  /** `prefix + value + suffix`, made again only when `value` differs from the last one asked for. */
  of(value: V): string {
    if (value !== this.value) {
      this.value = value;
      this.text = `${this.prefix}${value}${this.suffix}`;
    }
    return this.text;
  }
}
