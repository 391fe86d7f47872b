import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip, type ActiveElement, type ChartEvent } from 'chart.js';
import { useEffect, useRef } from 'react';
import { EVENT_LEVELS, type EventLevel, type StatsInterval } from '../api/types';
import { longBucketLabel, shortBucketLabel } from './stats-range';
import type { VolumeBucket } from './volume';

/**
 * Chart.js, tree-shaken: only the parts a stacked bar chart with tooltips needs. It draws on a canvas
 * and sets sizes through the CSSOM only, which the dashboard's CSP (no inline styles, no eval) allows.
 * The legend is HTML (below), not Chart.js's drawn one, so that it is text.
 */
function registerChartParts(): void {
  Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);
}

/** The colours come from the style sheet (`--level-*`), so the chart follows the light or dark scheme of the page. */
function cssColour(element: Element, name: string): string {
  return getComputedStyle(element).getPropertyValue(name).trim();
}

interface VolumeChartProps {
  readonly buckets: readonly VolumeBucket[];
  readonly interval: StatsInterval;
  /** What the canvas says to a screen reader: what it shows, and where the same numbers are as text. */
  readonly description: string;
  /** A bar was clicked: its bucket, and the level of the segment under the pointer (none between segments). */
  readonly onSelect: (bucket: VolumeBucket, level: EventLevel | undefined) => void;
}

/** Events per bucket as bars stacked by level, with a legend. A click on a bar selects its bucket. */
export function VolumeChart({ buckets, interval, description, onSelect }: VolumeChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  // The chart keeps the handler it was made with; this reaches the current one.
  const select = useRef(onSelect);
  useEffect(() => {
    select.current = onSelect;
  }, [onSelect]);

  useEffect(() => {
    const element = canvas.current;
    if (!element) return;
    registerChartParts();
    const ticks = { color: cssColour(element, '--muted'), font: { family: getComputedStyle(element).fontFamily } };
    // A segment under the pointer, else the bar whose column the pointer is in, if it has events.
    const selected = (event: ChartEvent, segments: readonly ActiveElement[], chart: Chart): [VolumeBucket, EventLevel | undefined] | undefined => {
      const segment = segments[0];
      if (segment) return [buckets[segment.index]!, EVENT_LEVELS[segment.datasetIndex]];
      const column = event.native ? chart.getElementsAtEventForMode(event.native, 'index', { intersect: false }, false)[0] : undefined;
      const bucket = column ? buckets[column.index] : undefined;
      return bucket && bucket.total > 0 ? [bucket, undefined] : undefined;
    };
    const chart = new Chart(element, {
      type: 'bar',
      data: {
        labels: buckets.map((b) => shortBucketLabel(b.start, interval)),
        datasets: EVENT_LEVELS.map((level) => ({
          label: level,
          data: buckets.map((b) => b.byLevel[level]),
          backgroundColor: cssColour(element, `--level-${level}`),
          // Many thin bars (a week of hours) still touch nothing but their neighbours' gap.
          categoryPercentage: 0.9,
          barPercentage: 0.9,
        })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        // Drawn at once: no motion, and a test sees the final picture as soon as there is one.
        animation: false,
        // A click or hover picks the segment under the pointer; the tooltip shows the whole bar.
        interaction: { mode: 'nearest', intersect: true },
        scales: {
          x: { stacked: true, grid: { display: false }, ticks: { ...ticks, maxRotation: 0, autoSkipPadding: 12 } },
          y: { stacked: true, beginAtZero: true, grid: { color: cssColour(element, '--border') }, ticks: { ...ticks, precision: 0 } },
        },
        plugins: {
          tooltip: {
            mode: 'index',
            intersect: false,
            filter: (item) => item.parsed.y !== 0,
            callbacks: { title: (items) => (items[0] ? longBucketLabel(buckets[items[0].dataIndex]!.start, interval) : '') },
          },
        },
        onHover: (event, segments, instance) => {
          element.style.cursor = selected(event, segments, instance) ? 'pointer' : 'default';
        },
        onClick: (event, segments, instance) => {
          const choice = selected(event, segments, instance);
          if (choice) select.current(...choice);
        },
      },
    });
    return () => chart.destroy();
  }, [buckets, interval]);

  return (
    <figure className="volume-chart">
      <div className="chart-box">
        <canvas ref={canvas} role="img" aria-label={description}>
          {description}
        </canvas>
      </div>
      <figcaption>
        <ul className="chart-legend" aria-label="Levels">
          {EVENT_LEVELS.map((level) => (
            <li key={level}>
              <span className={`swatch level-${level}`} aria-hidden="true" />
              {level}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
