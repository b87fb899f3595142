/** @jsxImportSource hono/jsx */
// Server-rendered SVG charts: no script, no library, fixed size (no layout shift), readable without
// colour (a text summary and a data table behind a <details> for screen readers and keyboard users).
import type { Child, FC } from "hono/jsx";

export interface Point {
  /** The x label, e.g. an ISO date. */
  x: string;
  y: number;
}

// The plot is drawn in a 640 x 200 box stretched to the figure's width (preserveAspectRatio none), so
// nothing drawn in it keeps its size on a phone. Every label is therefore HTML beside the SVG, at the
// page's own text size (readable at 390 px), placed by CSS classes (the CSP allows no style attributes):
// the value axis at 0, half and max, the time axis at its first and last point.
const W = 640;
const H = 200;
/** Top and bottom room in the plot, so the 0 and max lines sit where their labels are centred (app-css: .chart .y-axis). */
const PAD = 8;
const niceMax = (v: number) => {
  // The axis is labelled at 0, half and max: at least 2, so an empty or tiny chart reads 0, 1, 2
  // rather than 0, 1, 1.
  if (v <= 2) return 2;
  const p = 10 ** Math.floor(Math.log10(v));
  return Math.ceil(v / p) * p;
};
const yOf = (v: number, max: number) => PAD + (1 - Math.min(v, max) / max) * (H - 2 * PAD);

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const TWO_DAYS_MS = 2 * 86_400_000;

/** Labels for the ends of a time axis: dates, or day and time (UTC) when the points span under two days. */
export function timeLabels(xs: string[]): { first: string; last: string } | null {
  const first = xs[0];
  const last = xs.at(-1);
  if (first === undefined || last === undefined) return null;
  const a = Date.parse(first);
  const b = Date.parse(last);
  const withTime = first.length > 10 && Number.isFinite(a) && Number.isFinite(b) && b - a < TWO_DAYS_MS;
  const label = (iso: string) => {
    if (!withTime) return iso.slice(0, 10);
    const d = new Date(iso);
    return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${iso.slice(11, 16)}${iso === last ? " UTC" : ""}`;
  };
  return { first: label(first), last: label(last) };
}

const Plot: FC<{ max: number; xs: string[]; label: string; children?: Child }> = ({ max, xs, label, children }) => {
  const ends = timeLabels(xs);
  return (
    <div class="plot">
      <div class="y-axis" aria-hidden="true">
        <span class="y-max">{String(max)}</span>
        <span class="y-half">{String(Math.round(max / 2))}</span>
        <span class="y-zero">0</span>
      </div>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={label} preserveAspectRatio="none">
        {[0, 0.5, 1].map((f) => (
          <line x1="0" x2={String(W)} y1={String(yOf(max * f, max))} y2={String(yOf(max * f, max))} class="grid" />
        ))}
        {children}
      </svg>
      <div class="x-axis" aria-hidden="true">
        {ends && <span>{ends.first}</span>}
        {ends && ends.last !== ends.first && <span>{ends.last}</span>}
      </div>
    </div>
  );
};

const DataTable: FC<{ title: string; columns: string[]; rows: (string | number)[][] }> = ({ title, columns, rows }) => (
  <details class="chart-data">
    <summary>{`Data: ${title}`}</summary>
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col">{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              {r.map((v) => (
                <td>{String(v)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  </details>
);

/** One line over time (e.g. the posture score per check). */
export const LineChart: FC<{ title: string; points: Point[]; yMax?: number; summary: string }> = ({ title, points, yMax, summary }) => {
  const max = yMax ?? niceMax(Math.max(0, ...points.map((p) => p.y)));
  // Inset by the dot's radius so the first and last dots are whole.
  const x = (i: number) => (points.length <= 1 ? W / 2 : 4 + (i * (W - 8)) / (points.length - 1));
  const path = points.map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)} ${yOf(p.y, max).toFixed(1)}`).join(" ");
  return (
    <figure class="chart">
      <Plot max={max} xs={points.map((p) => p.x)} label={`${title}. ${summary}`}>
        {points.length > 0 && <path d={path} class="line" vector-effect="non-scaling-stroke" />}
        {/* Dots as round caps of zero-length strokes: a circle would be stretched with the plot. */}
        {points.length > 0 && points.length <= 40 && (
          <path d={points.map((p, i) => `M${x(i).toFixed(1)} ${yOf(p.y, max).toFixed(1)}h0`).join(" ")} class="dots" vector-effect="non-scaling-stroke" />
        )}
      </Plot>
      <figcaption>{summary}</figcaption>
      <DataTable title={title} columns={["When", "Value"]} rows={points.map((p) => [p.x, p.y])} />
    </figure>
  );
};

/** Days before the first one with data are left off the axis (at least `minDays` stay), so a new domain's few days of reports fill the chart instead of one edge of it. */
export function trimLeadingEmpty(totals: number[], minDays = 7): number {
  const first = totals.findIndex((t) => t > 0);
  if (first < 0) return 0;
  return Math.max(0, Math.min(first, totals.length - minDays));
}

/** Stacked bars per x (e.g. DMARC pass and fail messages per day). */
export const BarChart: FC<{
  title: string;
  labels: string[];
  series: { name: string; cls: "pass" | "fail" | "neutral"; values: number[] }[];
  summary: string;
}> = ({ title, labels: allLabels, series: allSeries, summary }) => {
  const from = trimLeadingEmpty(allLabels.map((_, i) => allSeries.reduce((s, ser) => s + (ser.values[i] ?? 0), 0)));
  const labels = allLabels.slice(from);
  const series = allSeries.map((s) => ({ ...s, values: s.values.slice(from) }));
  const totals = labels.map((_, i) => series.reduce((s, ser) => s + (ser.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const ih = H - 2 * PAD;
  const bw = labels.length > 0 ? W / labels.length : W;
  return (
    <figure class="chart">
      <Plot max={max} xs={labels} label={`${title}. ${summary}`}>
        {labels.map((_, i) => {
          let base = PAD + ih;
          return series.map((ser) => {
            const h = ((ser.values[i] ?? 0) / max) * ih;
            base -= h;
            return h > 0 ? (
              <rect
                x={(i * bw + bw * 0.1).toFixed(1)}
                y={base.toFixed(1)}
                width={Math.max(1, bw * 0.8).toFixed(1)}
                height={h.toFixed(1)}
                class={`bar ${ser.cls}`}
              />
            ) : null;
          });
        })}
      </Plot>
      <figcaption>
        {summary}
        {from > 0 && labels[0] && ` Nothing before ${labels[0]} in this period.`}{" "}
        {series.map((s) => (
          <span class={`legend ${s.cls}`}>{s.name}</span>
        ))}
      </figcaption>
      <DataTable title={title} columns={["When", ...series.map((s) => s.name)]} rows={labels.map((l, i) => [l, ...series.map((s) => s.values[i] ?? 0)])} />
    </figure>
  );
};
