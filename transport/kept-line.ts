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

/**
 * Text joined from five pieces, kept for the pieces it was last joined from. The pieces are themselves
 * kept lines (the same string object while their value repeats), so the usual check is five pointer
 * compares, and the joined text handed out again is flat: the first write flattened it in place, where a
 * new join is a rope the next write flattens into a new string before it copies it.
 *
 * Text asked for a second time is kept as bytes too: a head copied into the write's buffer from bytes
 * costs a third of writing it from a string (Buffer#write crosses into C++; a typed array's set does not).
 * A text made for one call only is never turned into bytes.
 */
export class KeptJoin {
  private a = '';
  private b = '';
  private c = '';
  private d = '';
  private e = '';
  private text = '';
  /** The text as latin1 bytes, made on its second use; never changed once made (writers hold it). */
  private kept: Buffer | null = null;
  /** The last `of` made the text anew. */
  private made = false;

  /** `end` closes the text (a head's blank line by default). */
  constructor(private readonly end = '\r\n') {}

  of(a: string, b: string, c: string, d: string, e: string): string {
    if (a !== this.a || b !== this.b || c !== this.c || d !== this.d || e !== this.e) {
      this.a = a; this.b = b; this.c = c; this.d = d; this.e = e;
      this.text = `${a}${b}${c}${d}${e}${this.end}`;
      this.kept = null;
      this.made = true;
    } else {
      this.made = false;
    }
    return this.text;
  }

  /** The bytes of the text the last `of` returned, or null when that text was made for it. */
  get bytes(): Buffer | null {
    if (this.made) return null;
    return (this.kept ??= Buffer.from(this.text, 'latin1'));
  }
}
