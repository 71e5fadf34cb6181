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
 * The known path closest to an unknown one, when it is close enough to be a typo: first among keys of the
 * same section, then among all paths.
 */
export function closest(unknown: string, known: Iterable<string>): string | undefined {
  const limit = Math.max(2, Math.floor(unknown.length * 0.3));
  let best: string | undefined;
  let bestScore = limit + 1;
  const lastDot = unknown.lastIndexOf('.');
  const leaf = unknown.slice(lastDot + 1);
  for (const k of known) {
    let d = distance(unknown, k, limit);
    // A key of the right name in another section ("offset" under [servr]) is as good a hint as a typo.
    if (d > limit && k.endsWith('.' + leaf)) d = limit;
    if (d < bestScore) { bestScore = d; best = k; }
  }
  return bestScore <= limit ? best : undefined;
}
