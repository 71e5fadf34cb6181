/**
 * A dependency-free SVG bar chart: groups of horizontal bars (one group per scenario, one bar per series),
 * each bar made of stacked segments (CPU per call: user, then kernel). Each group has its own scale, since
 * a 1 MiB transfer and a small GET differ a hundredfold; every bar carries its value as text.
 */
export interface Bar {
  readonly series: string;
  /** Stacked from the left; a single value for a plain bar. */
  readonly segments: readonly number[];
  /** Printed after the bar. */
  readonly text: string;
}

export interface BarGroup {
  readonly label: string;
  readonly bars: readonly Bar[];
}

export interface ChartSpec {
  readonly title: string;
  readonly subtitle?: string;
  readonly groups: readonly BarGroup[];
  /** Series in legend order with their colours; a series not listed is grey. */
  readonly series: readonly { readonly name: string; readonly color: string }[];
  /** Names of the stacked segments, for the legend (user, kernel). */
  readonly segmentNames?: readonly string[];
}

export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const BAR_H = 16;
const GAP = 14;
const LABEL_W = 250;
const PLOT_W = 420;
const TEXT_W = 150;

/** Segment i of a bar is drawn lighter as i grows, in the series' colour. */
const opacity = (i: number): number => Math.max(0.25, 1 - 0.45 * i);

export function barChart(spec: ChartSpec): string {
  const color = new Map(spec.series.map((s) => [s.name, s.color]));
  const width = LABEL_W + PLOT_W + TEXT_W;
  const top = spec.subtitle ? 78 : 60;
  const groupH = (g: BarGroup): number => Math.max(1, g.bars.length) * BAR_H + GAP;
  const height = top + spec.groups.reduce((n, g) => n + groupH(g), 0) + 10;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  out.push(`<text x="10" y="20" font-size="14" font-weight="bold">${esc(spec.title)}</text>`);
  if (spec.subtitle) out.push(`<text x="10" y="38" fill="#555">${esc(spec.subtitle)}</text>`);
  const legendY = top - 22;
  let x = 10;
  for (const s of spec.series) {
    out.push(`<rect x="${x}" y="${legendY - 9}" width="10" height="10" fill="${s.color}"/><text x="${x + 14}" y="${legendY}">${esc(s.name)}</text>`);
    x += 24 + s.name.length * 7;
  }
  (spec.segmentNames ?? []).forEach((name, i) => {
    out.push(`<rect x="${x}" y="${legendY - 9}" width="10" height="10" fill="#444" fill-opacity="${opacity(i)}"/><text x="${x + 14}" y="${legendY}">${esc(name)}</text>`);
    x += 24 + name.length * 7;
  });
  let y = top;
  for (const g of spec.groups) {
    const max = Math.max(0, ...g.bars.map((b) => b.segments.reduce((a, v) => a + v, 0)));
    out.push(`<line x1="10" x2="${width - 10}" y1="${y - GAP / 2}" y2="${y - GAP / 2}" stroke="#ddd"/>`);
    out.push(`<text x="10" y="${y + (g.bars.length * BAR_H) / 2 + 4}">${esc(g.label)}</text>`);
    g.bars.forEach((b, i) => {
      const by = y + i * BAR_H;
      let bx = LABEL_W;
      b.segments.forEach((v, si) => {
        const w = max > 0 ? (v / max) * PLOT_W : 0;
        out.push(`<rect x="${bx.toFixed(1)}" y="${by + 2}" width="${w.toFixed(1)}" height="${BAR_H - 4}" fill="${color.get(b.series) ?? '#999'}" fill-opacity="${opacity(si)}"><title>${esc(`${b.series}: ${b.text}`)}</title></rect>`);
        bx += w;
      });
      out.push(`<text x="${(bx + 4).toFixed(1)}" y="${by + BAR_H - 4}">${esc(`${b.series} ${b.text}`)}</text>`);
    });
    y += groupH(g);
  }
  out.push('</svg>');
  return out.join('\n') + '\n';
}
