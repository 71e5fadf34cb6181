/** A dependency-free SVG: requests/s and p99 per scenario (rows) and product (bars). */
export interface ChartRow {
  readonly scenario: string;
  readonly values: Readonly<Record<string, { readonly rps: number; readonly p99: number }>>;
}

const COLORS: Record<string, string> = { sluice: '#1f77b4', nginx: '#2ca02c', fastify: '#d62728', direct: '#7f7f7f' };

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

export function svgChart(rows: readonly ChartRow[], title: string): string {
  const products = [...new Set(rows.flatMap((r) => Object.keys(r.values)))];
  const barH = 14;
  const groupH = products.length * barH + 18;
  const labelW = 230;
  const plotW = 420;
  const width = labelW + plotW * 2 + 80;
  const height = 60 + rows.length * groupH;
  const maxRps = Math.max(1, ...rows.flatMap((r) => Object.values(r.values).map((v) => v.rps)));
  const maxP99 = Math.max(1, ...rows.flatMap((r) => Object.values(r.values).map((v) => v.p99)));
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`);
  parts.push(`<text x="10" y="18" font-size="14" font-weight="bold">${esc(title)}</text>`);
  parts.push(`<text x="${labelW}" y="40" font-weight="bold">requests/s</text><text x="${labelW + plotW + 40}" y="40" font-weight="bold">p99 latency (ms)</text>`);
  products.forEach((p, i) => parts.push(`<rect x="${10 + i * 90}" y="28" width="10" height="10" fill="${COLORS[p] ?? '#999'}"/><text x="${24 + i * 90}" y="37">${esc(p)}</text>`));
  rows.forEach((r, ri) => {
    const y0 = 50 + ri * groupH;
    parts.push(`<text x="10" y="${y0 + groupH / 2}">${esc(r.scenario)}</text>`);
    products.forEach((p, pi) => {
      const v = r.values[p];
      if (!v) return;
      const y = y0 + pi * barH;
      const w1 = (v.rps / maxRps) * plotW;
      const w2 = (v.p99 / maxP99) * plotW;
      parts.push(`<rect x="${labelW}" y="${y}" width="${w1.toFixed(1)}" height="${barH - 3}" fill="${COLORS[p] ?? '#999'}"/><text x="${labelW + w1 + 3}" y="${y + 10}">${Math.round(v.rps)}</text>`);
      parts.push(`<rect x="${labelW + plotW + 40}" y="${y}" width="${w2.toFixed(1)}" height="${barH - 3}" fill="${COLORS[p] ?? '#999'}" opacity="0.7"/><text x="${labelW + plotW + 43 + w2}" y="${y + 10}">${v.p99.toFixed(2)}</text>`);
    });
  });
  parts.push('</svg>');
  return parts.join('\n');
}
