/**
 * A request head llhttp hands over in parts: more than 32 fields, or a head split across reads, come
 * through `kOnHeaders` before the head's completion, which then carries only the last part (or none).
 */
export class HeadParts {
  private fields: string[] | null = null;
  private target = '';
  /** The fields and target of the whole head, after `join` (the last part's own when it came whole). */
  joinedFields: string[] | undefined = undefined;
  joinedTarget: string | undefined = undefined;

  /** One part: its fields (name, value, ...) and its piece of the target. */
  add(headers: string[], url: string): void {
    if (this.fields === null) this.fields = headers.slice();
    else for (let i = 0; i < headers.length; i++) this.fields.push(headers[i]!);
    this.target += url;
  }

  /** The parts so far are dropped: the head is read again from its start (request-reader.ts, parseAfresh). */
  reset(): void {
    this.fields = null;
    this.target = '';
  }

  /** The head is complete with this last part: `joinedFields` and `joinedTarget` are the whole head's. */
  join(headers: string[] | undefined, url: string | undefined): void {
    const parts = this.fields;
    if (parts === null) { this.joinedFields = headers; this.joinedTarget = url; return; }
    this.joinedFields = headers === undefined ? parts : parts.concat(headers);
    this.joinedTarget = this.target + (url ?? '');
    this.fields = null;
    this.target = '';
  }
}
