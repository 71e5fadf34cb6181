/**
 * The backend's header fields of the previous response on this io thread, kept with the text made from
 * them. A backend answers call after call with the same fields (Content-Type, Connection, Keep-Alive, its
 * ETag...), and the text the client gets from them costs a concatenation per piece and a step again when
 * the write flattens the rope: about 3 000 instructions for five fields (docs/performance.md, stop 34).
 * Comparing them with the previous response's costs a string comparison per name and value.
 *
 * The kept fields are a copy: the parser's array belongs to the call, which may change it (mediation).
 * The text is kept for one `owner` (the header rules it was made under): rules replaced by a new
 * deployment make it again.
 */
export class KeptFields {
  private fields: readonly string[] = [];
  private owner: object | null = null;
  private text = '';

  /** The text kept for exactly these fields under `owner`; null when either differs from the last kept. */
  find(fields: readonly string[], owner: object): string | null {
    return owner === this.owner && sameStrings(fields, this.fields) ? this.text : null;
  }

  /** Keeps `text` as made from `fields` under `owner`, and returns it. */
  keep(fields: readonly string[], owner: object, text: string): string {
    this.fields = fields.slice();
    this.owner = owner;
    this.text = text;
    return text;
  }
}

/** Whether two lists hold the same strings in the same order. */
export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  const n = a.length;
  if (n !== b.length) return false;
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}
