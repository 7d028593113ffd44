// The overview's pictures as inline SVG (no chart library, nothing fetched): sized by a viewBox
// and drawn at 100% of their box, so they fit a phone's width as well as a desktop's.
import { h, s } from "/dom.js";

/**
 * The bar chart's viewBox width: about the width it will be drawn at (the page less its margins),
 * so one unit is about one pixel and the 11px axis labels stay 11px — a fixed 640-unit box drawn
 * 324px wide on a phone shrank them to 5px, and 1,034px wide on a desktop grew them to 18px.
 * Between 300 and 1040 (the overview's widest card).
 */
function chartWidth() {
  const page = globalThis.document?.documentElement?.clientWidth ?? 1040;
  return Math.round(Math.min(1040, Math.max(300, page - 66)));
}

/**
 * Stacked bars: one bar per period, one segment per series. `periods` is
 * `[{label, counts: {series: n}}]`; `series` fixes the order and the colour class `c-<series>`.
 */
export function stackedBars(periods, series, { title }) {
  const width = chartWidth();
  const height = 220;
  const left = 34;
  const bottom = 24;
  const top = 8;
  const most = Math.max(
    1,
    ...periods.map((p) => series.reduce((sum, name) => sum + (p.counts[name] ?? 0), 0)),
  );
  const slot = (width - left) / Math.max(1, periods.length);
  const bar = Math.max(2, Math.min(48, slot * 0.7));
  const scale = (height - bottom - top) / most;
  const ticks = [0, Math.ceil(most / 2), most];
  // A date label needs about 44 units: as many as fit, at most 8.
  const labels = Math.max(2, Math.min(8, Math.floor((width - left) / 44)));
  const every = Math.max(1, Math.ceil(periods.length / labels));
  return s(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title, className: "chart" },
    s("title", {}, title),
    ticks.map((tick) =>
      s(
        "g",
        {},
        s("line", {
          x1: left,
          x2: width,
          y1: height - bottom - tick * scale,
          y2: height - bottom - tick * scale,
          className: "grid",
        }),
        s(
          "text",
          { x: left - 6, y: height - bottom - tick * scale + 4, className: "axis", "text-anchor": "end" },
          tick,
        ),
      ),
    ),
    periods.map((period, index) => {
      let y = height - bottom;
      const x = left + index * slot + (slot - bar) / 2;
      const total = series.reduce((sum, name) => sum + (period.counts[name] ?? 0), 0);
      return s(
        "g",
        { className: "period" },
        s(
          "title",
          {},
          `${period.label}: ${total} (${series
            .filter((n) => period.counts[n])
            .map((n) => `${n} ${period.counts[n]}`)
            .join(", ")})`,
        ),
        series.map((name) => {
          const count = period.counts[name] ?? 0;
          if (count === 0) return null;
          y -= count * scale;
          return s("rect", { x, y, width: bar, height: count * scale, className: `c-${name}` });
        }),
        index % every === 0
          ? s(
              "text",
              // Kept inside the box: the last day's label otherwise hangs past the right edge.
              {
                x: Math.min(x + bar / 2, width - 18),
                y: height - 6,
                className: "axis",
                "text-anchor": "middle",
              },
              period.label,
            )
          : null,
      );
    }),
  );
}

/** One horizontal bar split by share, with a legend: the mix of `parts` (`[{label, count, className}]`). */
export function shareBar(parts, { title }) {
  const total = parts.reduce((sum, part) => sum + part.count, 0) || 1;
  let x = 0;
  return h(
    "figure",
    { className: "share" },
    s(
      "svg",
      {
        viewBox: "0 0 100 8",
        preserveAspectRatio: "none",
        role: "img",
        "aria-label": title,
        className: "share-bar",
      },
      s("title", {}, title),
      parts.map((part) => {
        const width = (part.count / total) * 100;
        const rect = s("rect", { x, y: 0, width, height: 8, className: part.className });
        x += width;
        return rect;
      }),
    ),
    legend(parts),
  );
}

/** A legend: a swatch, a label and a count per part. */
export function legend(parts) {
  return h(
    "ul",
    { className: "legend" },
    parts.map((part) =>
      h(
        "li",
        {},
        s(
          "svg",
          { viewBox: "0 0 10 10", className: "swatch", "aria-hidden": "true" },
          s("rect", { width: 10, height: 10, className: part.className }),
        ),
        ` ${part.label} `,
        h("span", { className: "muted" }, String(part.count)),
      ),
    ),
  );
}
