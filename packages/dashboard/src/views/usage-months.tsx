/** @jsxImportSource hono/jsx */
import { axisTicks, type MonthUsage } from '../domain/monthly-usage.js';
import { DataTable } from './data-table.js';

const WIDTH = 640;
const HEIGHT = 240;
const PAD_TOP = 12;
const PAD_BOTTOM = 36;
const PAD_LEFT = 52;
const PAD_RIGHT = 8;
const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LONG_MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A whole number with thousands apart: `12,345`. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** `2026-01` as `January 2026`. */
export function monthName(month: string): string {
  const [year, index] = month.split('-');
  return `${LONG_MONTH_NAMES[Number(index) - 1]} ${year}`;
}

/** What one bar says, on hover (its title) and to a screen reader or the keyboard (its label). */
export function monthBarLabel(month: MonthUsage, limit: number | null): string {
  const count = month.live.notifications;
  const value = `${monthName(month.month)}: ${formatCount(count)} live notification${count === 1 ? '' : 's'}`;
  return limit === null ? value : `${value} of ${formatCount(limit)} allowed`;
}

/**
 * Live notifications per UTC month, drawn on the server as SVG: the y-axis with round values, the
 * months under their bars, and the plan's monthly limit as a dashed line when the project has one
 * (a bar over it is marked). Each bar is a link to that month's days, so it takes the keyboard's
 * focus, and says its value in its title (hover) and its label (focus, screen readers); the table
 * after it has every figure.
 */
export function MonthlyUsageChart(props: { months: MonthUsage[]; limit: number | null; projectRoot: string }) {
  const { months, limit } = props;
  const highest = Math.max(0, ...months.map((month) => month.live.notifications), limit ?? 0);
  const ticks = axisTicks(highest);
  const top = ticks[ticks.length - 1] ?? 1;
  const plotBottom = HEIGHT - PAD_BOTTOM;
  const plotHeight = plotBottom - PAD_TOP;
  const y = (value: number) => plotBottom - (value / top) * plotHeight;
  const slot = (WIDTH - PAD_LEFT - PAD_RIGHT) / Math.max(1, months.length);
  const barWidth = Math.max(2, slot * 0.6);
  return (
    <figure class="usage-figure usage-months">
      <figcaption id="usage-months-title">Live notifications per UTC month, the last {months.length} months</figcaption>
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        aria-labelledby="usage-months-title"
        aria-describedby="usage-months-note"
        preserveAspectRatio="xMidYMid meet"
      >
        <title>Live notifications per UTC month</title>
        {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: no shape or text of the axes takes focus; the bars' labels and the table say their values */}
        <g class="axes" aria-hidden="true">
          {ticks.map((tick) => (
            <>
              <line x1={PAD_LEFT} y1={y(tick).toFixed(1)} x2={WIDTH - PAD_RIGHT} y2={y(tick).toFixed(1)} class="grid" />
              <text x={PAD_LEFT - 6} y={(y(tick) + 4).toFixed(1)} class="tick" text-anchor="end">
                {formatCount(tick)}
              </text>
            </>
          ))}
          <line x1={PAD_LEFT} y1={plotBottom} x2={WIDTH - PAD_RIGHT} y2={plotBottom} class="axis" />
          <line x1={PAD_LEFT} y1={PAD_TOP} x2={PAD_LEFT} y2={plotBottom} class="axis" />
          {months.map((month, index) => {
            const [year, monthIndex] = month.month.split('-');
            const middle = (PAD_LEFT + (index + 0.5) * slot).toFixed(1);
            return (
              <>
                <text x={middle} y={plotBottom + 14} class="tick month" text-anchor="middle">
                  {MONTH_NAMES[Number(monthIndex) - 1]}
                </text>
                {index === 0 || monthIndex === '01' ? (
                  <text x={middle} y={plotBottom + 28} class="tick" text-anchor="middle">
                    {year}
                  </text>
                ) : null}
              </>
            );
          })}
          {limit !== null ? (
            <g class="limit">
              <line x1={PAD_LEFT} y1={y(limit).toFixed(1)} x2={WIDTH - PAD_RIGHT} y2={y(limit).toFixed(1)} />
              <text x={WIDTH - PAD_RIGHT - 4} y={(y(limit) - 4).toFixed(1)} text-anchor="end">
                {`limit ${formatCount(limit)} a month`}
              </text>
            </g>
          ) : null}
        </g>
        {months.map((month, index) => {
          const value = month.live.notifications;
          const height = plotBottom - y(value);
          const x = PAD_LEFT + index * slot + (slot - barWidth) / 2;
          const over = limit !== null && value > limit;
          const label = monthBarLabel(month, limit);
          return (
            <a
              href={`${props.projectRoot}/usage?from=${month.from}&to=${month.to}`}
              aria-label={`${label}${over ? ', over the limit' : ''}. Show its days.`}
              class="bar-link"
              data-month={month.month}
            >
              <title>{label}</title>
              {/* The whole slot takes the pointer, so a month with few sends is still easy to hover. */}
              <rect x={x.toFixed(1)} y={PAD_TOP} width={barWidth.toFixed(1)} height={plotHeight} class="hit" />
              <rect
                x={x.toFixed(1)}
                y={(plotBottom - height).toFixed(1)}
                width={barWidth.toFixed(1)}
                height={height.toFixed(1)}
                class={over ? 'bar live over' : 'bar live'}
              />
            </a>
          );
        })}
      </svg>
      <ul class="legend">
        <li>
          <span class="swatch live" aria-hidden="true" /> live notifications
        </li>
        {limit !== null ? (
          <li>
            <span class="swatch limit" aria-hidden="true" /> the plan's limit, {formatCount(limit)} a month
          </li>
        ) : null}
        <li class="muted">x: UTC month · y: live notifications</li>
      </ul>
    </figure>
  );
}

/** Every figure of the monthly chart, newest month first: what screen readers and a narrow page read. */
export function MonthlyUsageTable(props: { months: MonthUsage[]; limit: number | null }) {
  return (
    <DataTable
      label="Usage per UTC month"
      caption="Usage per UTC month, live and test"
      class="usage-table"
      columns={[
        'Month (UTC)',
        { label: 'Live notifications', num: true },
        { label: 'Limit', num: true },
        { label: 'Live attempts', num: true },
        { label: 'Sent', num: true },
        { label: 'Delivered', num: true },
        { label: 'Test notifications', num: true },
      ]}
    >
      {[...props.months].reverse().map((month) => (
        <tr data-month={month.month}>
          <th scope="row">{monthName(month.month)}</th>
          <td class="num">{formatCount(month.live.notifications)}</td>
          <td class="num">{props.limit === null ? 'none' : formatCount(props.limit)}</td>
          <td class="num">{formatCount(month.live.attempts)}</td>
          <td class="num">{formatCount(month.live.sent)}</td>
          <td class="num">{formatCount(month.live.delivered)}</td>
          <td class="num">{formatCount(month.testNotifications)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
