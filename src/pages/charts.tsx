/** @jsxImportSource hono/jsx */
// Server-rendered SVG charts: no script, no library, fixed size (no layout shift), readable without
// colour (a text summary and a data table behind a <details> for screen readers and keyboard users).
import type { FC } from "hono/jsx";

export interface Point {
  /** The x label, e.g. an ISO date. */
  x: string;
  y: number;
}

const W = 640;
const H = 200;
const PAD = { top: 12, right: 12, bottom: 28, left: 40 };
const niceMax = (v: number) => {
  // The axis is labelled at 0, half and max: at least 2, so an empty or tiny chart reads 0, 1, 2
  // rather than 0, 1, 1.
  if (v <= 2) return 2;
  const p = 10 ** Math.floor(Math.log10(v));
  return Math.ceil(v / p) * p;
};

const Axes: FC<{ max: number; first?: string; last?: string }> = ({ max, first, last }) => (
  <g class="axes">
    {[0, 0.5, 1].map((f) => {
      const y = PAD.top + (1 - f) * (H - PAD.top - PAD.bottom);
      return (
        <g>
          <line x1={PAD.left} x2={W - PAD.right} y1={y} y2={y} class="grid" />
          <text x={PAD.left - 6} y={y + 4} text-anchor="end" class="tick">
            {String(Math.round(max * f))}
          </text>
        </g>
      );
    })}
    {first && (
      <text x={PAD.left} y={H - 8} class="tick">
        {first}
      </text>
    )}
    {last && (
      <text x={W - PAD.right} y={H - 8} text-anchor="end" class="tick">
        {last}
      </text>
    )}
  </g>
);

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
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const xy = (i: number, y: number) =>
    [PAD.left + (points.length <= 1 ? iw / 2 : (i * iw) / (points.length - 1)), PAD.top + (1 - Math.min(y, max) / max) * ih] as const;
  const path = points
    .map(
      (p, i) =>
        `${i === 0 ? "M" : "L"}${xy(i, p.y)
          .map((n) => n.toFixed(1))
          .join(" ")}`,
    )
    .join(" ");
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}. ${summary}`} preserveAspectRatio="none">
        <Axes max={max} first={points[0]?.x.slice(0, 10)} last={points.at(-1)?.x.slice(0, 10)} />
        {points.length > 0 && <path d={path} class="line" />}
        {points.map((p, i) => {
          const [x, y] = xy(i, p.y);
          return <circle cx={x.toFixed(1)} cy={y.toFixed(1)} r="3" class="dot" />;
        })}
      </svg>
      <figcaption>{summary}</figcaption>
      <DataTable title={title} columns={["When", "Value"]} rows={points.map((p) => [p.x, p.y])} />
    </figure>
  );
};

/** Stacked bars per x (e.g. DMARC pass and fail messages per day). */
export const BarChart: FC<{
  title: string;
  labels: string[];
  series: { name: string; cls: "pass" | "fail" | "neutral"; values: number[] }[];
  summary: string;
}> = ({ title, labels, series, summary }) => {
  const totals = labels.map((_, i) => series.reduce((s, ser) => s + (ser.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const bw = labels.length > 0 ? iw / labels.length : iw;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}. ${summary}`} preserveAspectRatio="none">
        <Axes max={max} first={labels[0]?.slice(0, 10)} last={labels.at(-1)?.slice(0, 10)} />
        {labels.map((_, i) => {
          let base = PAD.top + ih;
          return series.map((ser) => {
            const h = ((ser.values[i] ?? 0) / max) * ih;
            base -= h;
            return h > 0 ? (
              <rect
                x={(PAD.left + i * bw + bw * 0.1).toFixed(1)}
                y={base.toFixed(1)}
                width={Math.max(1, bw * 0.8).toFixed(1)}
                height={h.toFixed(1)}
                class={`bar ${ser.cls}`}
              />
            ) : null;
          });
        })}
      </svg>
      <figcaption>
        {summary}{" "}
        {series.map((s) => (
          <span class={`legend ${s.cls}`}>{s.name}</span>
        ))}
      </figcaption>
      <DataTable title={title} columns={["When", ...series.map((s) => s.name)]} rows={labels.map((l, i) => [l, ...series.map((s) => s.values[i] ?? 0)])} />
    </figure>
  );
};
