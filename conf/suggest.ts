/** Edit distance with an early cut-off: enough to rank "did you mean" candidates. */
function distance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let prev = new Array<number>(b.length + 1);
  let cur = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (cur[j]! < rowMin) rowMin = cur[j]!;
    }
    if (rowMin > limit) return limit + 1;
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/**
 * The known path closest to an unknown one, when it is close enough to be a typo. "Close enough" is measured
 * against the last segment, so that a short key is not matched to an unrelated one of its section
 * (`server.foo` is not `server.mode`). Failing that, the same key in a section of a close name
 * (`servr.offset` -> `server.offset`); failing that, a single known name of the same section that starts with
 * the unknown one (`prod` -> `production`).
 */
export function closest(unknown: string, known: Iterable<string>): string | undefined {
  const lastDot = unknown.lastIndexOf('.');
  const leaf = unknown.slice(lastDot + 1);
  const section = unknown.slice(0, lastDot + 1);
  const limit = Math.max(1, Math.min(Math.floor(unknown.length * 0.3), Math.floor(leaf.length * 0.4)));
  const sectionLimit = Math.max(2, Math.floor(section.length * 0.3));
  let best: string | undefined;
  let bestScore = limit + 1;
  let moved: string | undefined;
  let movedScore = sectionLimit + 1;
  const prefixed: string[] = [];
  for (const k of known) {
    const d = distance(unknown, k, limit);
    if (d < bestScore) { bestScore = d; best = k; }
    if (lastDot > 0 && k.endsWith('.' + leaf)) {
      const ds = distance(section, k.slice(0, k.length - leaf.length), sectionLimit);
      if (ds < movedScore) { movedScore = ds; moved = k; }
    }
    if (leaf.length >= 3 && k.toLowerCase().startsWith(unknown.toLowerCase()) && !k.slice(section.length).includes('.')) prefixed.push(k);
  }
  if (bestScore <= limit) return best;
  if (moved !== undefined) return moved;
  return prefixed.length === 1 ? prefixed[0] : undefined;
}
