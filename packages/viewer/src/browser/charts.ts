import { formatNumber, h, s, truncate } from "./dom.ts";

export interface LinePoint {
  label: string;
  value: number | null;
}

/**
 * A line chart of values in [min, max] (default 0..1), one point per label,
 * with an optional dashed threshold line. Each point is a
 * `circle.point[data-label][data-value]` with its value as text above it.
 */
export function lineChart(options: {
  points: readonly LinePoint[];
  label: string;
  threshold?: number | null;
  min?: number;
  max?: number;
  className?: string;
}): SVGSVGElement {
  const min = options.min ?? 0;
  const max = options.max ?? 1;
  const left = 40;
  const right = 56;
  const top = 20;
  const bottom = 40;
  const step = Math.max(60, Math.min(120, 640 / Math.max(1, options.points.length)));
  const plotWidth = step * Math.max(1, options.points.length - 1);
  const plotHeight = 160;
  const thresholdNote =
    typeof options.threshold === "number" ? ` Dashed line: threshold ${formatNumber(options.threshold)}.` : "";
  const width = left + plotWidth + right;
  const height = top + plotHeight + bottom;
  const y = (value: number) => top + plotHeight - ((value - min) / (max - min || 1)) * plotHeight;
  const x = (index: number) => left + (options.points.length === 1 ? plotWidth / 2 : index * step);
  const svg = s("svg", {
    class: `chart ${options.className ?? ""}`.trim(),
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": `${options.label}.${thresholdNote}`,
  });
  for (const tick of [min, (min + max) / 2, max]) {
    svg.append(s("line", { x1: left, x2: left + plotWidth, y1: y(tick), y2: y(tick), class: "grid" }));
    svg.append(
      s("text", { x: left - 6, y: y(tick) + 4, "text-anchor": "end", class: "axis-label" }, formatNumber(tick, 1)),
    );
  }
  if (typeof options.threshold === "number") {
    svg.append(
      s("line", {
        x1: left,
        x2: left + plotWidth,
        y1: y(options.threshold),
        y2: y(options.threshold),
        class: "threshold",
      }),
    );
    svg.append(
      s(
        "text",
        {
          x: left + plotWidth + 6,
          y: y(options.threshold) + 4,
          "text-anchor": "start",
          class: "axis-label threshold-label",
        },
        formatNumber(options.threshold),
      ),
    );
  }
  const present = options.points
    .map((point, index) => ({ ...point, index }))
    .filter((point): point is LinePoint & { value: number; index: number } => point.value !== null);
  if (present.length > 1) {
    svg.append(
      s("polyline", {
        points: present.map((point) => `${x(point.index).toFixed(1)},${y(point.value).toFixed(1)}`).join(" "),
        class: "line",
      }),
    );
  }
  options.points.forEach((point, index) => {
    svg.append(
      s(
        "text",
        { x: x(index), y: top + plotHeight + 18, "text-anchor": "middle", class: "axis-label" },
        truncate(point.label, 14),
      ),
    );
    if (point.value === null) return;
    svg.append(
      s(
        "circle",
        {
          cx: x(index),
          cy: y(point.value),
          r: 4.5,
          class: "point",
          "data-label": point.label,
          "data-value": point.value,
        },
        s("title", {}, `${point.label}: ${formatNumber(point.value, 3)}`),
      ),
    );
    svg.append(
      s(
        "text",
        { x: x(index), y: y(point.value) - 9, "text-anchor": "middle", class: "point-label" },
        formatNumber(point.value),
      ),
    );
  });
  return svg;
}

/** A ranked list of horizontal bars: label, bar (relative to the largest) and the value as text. */
export function rankingBars(
  rows: ReadonlyArray<{ label: string; value: number; note?: string; highlight?: boolean }>,
  caption: string,
): HTMLElement {
  const largest = Math.max(...rows.map((row) => Math.abs(row.value)), Number.EPSILON);
  return h(
    "ol",
    { class: "ranking", "aria-label": caption },
    rows.map((row) => {
      const fill = h("span", { class: "bar-fill" });
      fill.style.width = `${Math.round((Math.abs(row.value) / largest) * 1000) / 10}%`;
      return h(
        "li",
        { class: `ranking-row${row.highlight ? " is-best" : ""}`, "data-label": row.label },
        h("span", { class: "ranking-label" }, row.label),
        h("span", { class: "bar", "aria-hidden": "true" }, fill),
        h("span", { class: "ranking-value" }, formatNumber(row.value, 3)),
        row.note ? h("span", { class: "ranking-note" }, row.note) : null,
      );
    }),
  );
}
