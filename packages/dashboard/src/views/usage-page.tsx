/** @jsxImportSource hono/jsx */
import type { ProjectObject, UsageBreakdown, UsageBreakdownDayObject } from '@tidings/core';
import type { MonthUsage } from '../domain/monthly-usage.js';
import { DataTable } from './data-table.js';
import { Field, Notice, usePage } from './layout.js';
import { ProjectFrame } from './project-frame.js';
import { formatCount, MonthlyUsageChart, MonthlyUsageTable } from './usage-months.js';

const WIDTH = 640;
const HEIGHT = 200;
const PAD_BOTTOM = 24;
const PAD_LEFT = 40;

/** One series of a chart: its label (the legend's) and its figure of a day. */
interface Series {
  name: string;
  /** The bar's class: its colour in the stylesheet and the legend's swatch. */
  kind: 'live' | 'test' | 'sent' | 'delivered';
  value: (day: UsageBreakdownDayObject) => number;
}

/**
 * Bars per UTC day, drawn on the server as SVG (no script, no library): the series of a day side
 * by side, each with its label in a tooltip, the axes labelled, and a legend beside it. The
 * table after the charts has the same figures for screen readers.
 */
function UsageChart(props: { id: string; title: string; days: UsageBreakdownDayObject[]; series: Series[] }) {
  const { days, series } = props;
  const max = Math.max(1, ...days.flatMap((day) => series.map((one) => one.value(day))));
  const slot = (WIDTH - PAD_LEFT) / Math.max(1, days.length);
  const groupWidth = Math.max(2, slot * 0.8);
  const barWidth = groupWidth / series.length;
  const plot = HEIGHT - PAD_BOTTOM;
  return (
    <figure class="usage-figure">
      <figcaption id={`${props.id}-title`}>{props.title}</figcaption>
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby={`${props.id}-title`}
        aria-describedby="usage-table-note"
        preserveAspectRatio="xMidYMid meet"
      >
        <title>{props.title}</title>
        <line x1={PAD_LEFT} y1={plot} x2={WIDTH} y2={plot} class="axis" />
        <line x1={PAD_LEFT} y1={4} x2={PAD_LEFT} y2={plot} class="axis" />
        <text x={PAD_LEFT - 6} y={12} class="tick" text-anchor="end">
          {max}
        </text>
        <text x={PAD_LEFT - 6} y={plot} class="tick" text-anchor="end">
          0
        </text>
        {days.map((day, index) =>
          series.map((one, position) => {
            const value = one.value(day);
            const height = Math.round((value / max) * (plot - 8));
            const x = PAD_LEFT + index * slot + (slot - groupWidth) / 2 + position * barWidth;
            return (
              <rect
                x={x.toFixed(1)}
                y={plot - height}
                width={barWidth.toFixed(1)}
                height={height}
                class={`bar ${one.kind}`}
              >
                <title>{`${day.date}: ${value} ${one.name}`}</title>
              </rect>
            );
          }),
        )}
        {days.length > 0 ? (
          <>
            <text x={PAD_LEFT} y={HEIGHT - 6} class="tick">
              {days[0]!.date}
            </text>
            <text x={WIDTH} y={HEIGHT - 6} class="tick" text-anchor="end">
              {days[days.length - 1]!.date}
            </text>
          </>
        ) : null}
      </svg>
      <ul class="legend">
        {series.map((one) => (
          <li>
            <span class={`swatch ${one.kind}`} aria-hidden="true" /> {one.name}
          </li>
        ))}
        <li class="muted">x: UTC day · y: count</li>
      </ul>
    </figure>
  );
}

/** What the usage page's range form shows: the values as typed, and the refusal, if any. */
export interface UsageRangeState {
  from: string;
  to: string;
  errors?: { from?: string; to?: string };
  message?: string;
}

/** The usage page's two views: per day over a range, or per month over the last 12. */
function ViewSwitch(props: { root: string; view: 'day' | 'month' }) {
  return (
    <nav class="view-switch" aria-label="Usage view">
      <a href={`${props.root}/usage`} aria-current={props.view === 'day' ? 'page' : undefined}>
        By day
      </a>
      <a href={`${props.root}/usage?view=month`} aria-current={props.view === 'month' ? 'page' : undefined}>
        By month
      </a>
    </nav>
  );
}

/** The monthly view's figures: the months, oldest first, and the plan's monthly limit, if any. */
export interface MonthlyUsage {
  months: MonthUsage[];
  limit: number | null;
}

/**
 * A project's live notifications per UTC month over the last 12 months, against its plan's
 * monthly limit where it has one, as a chart and as a table.
 */
export function MonthlyUsagePage(props: { project: ProjectObject; usage: MonthlyUsage }) {
  const ctx = usePage();
  const { months, limit } = props.usage;
  const root = `${ctx.base}/projects/${props.project.id}`;
  const current = months[months.length - 1];
  return (
    <ProjectFrame project={props.project} tab="usage" title="Usage">
      <h2>Usage by month, the last {months.length} months</h2>
      <ViewSwitch root={root} view="month" />
      <p class="muted" data-limit-note="">
        {limit === null ? (
          <>
            This project has no monthly limit on its notifications: Tidings limits how fast a project sends (per
            minute), not how much in a month. Test mode never counts.
          </>
        ) : (
          <>
            This project's plan allows <strong>{formatCount(limit)}</strong> live notifications a month
            {current ? (
              <>
                ; this month, <strong>{formatCount(current.live.notifications)}</strong> so far
              </>
            ) : null}
            . Test mode never counts.
          </>
        )}
      </p>
      <MonthlyUsageChart months={months} limit={limit} projectRoot={root} />
      <p id="usage-months-note" class="muted">
        Each bar leads to its month's days. The table below has every figure of the chart, newest month first.
      </p>
      <MonthlyUsageTable months={months} limit={limit} />
    </ProjectFrame>
  );
}

/**
 * A project's sends per UTC day over a range of days (the last 30 by default): live against
 * test notifications, and of the live attempts those sent against those delivered, as charts and
 * as a table.
 */
export function UsagePage(props: { project: ProjectObject; range: UsageRangeState; usage: UsageBreakdown | null }) {
  const ctx = usePage();
  const { usage, range } = props;
  const root = `${ctx.base}/projects/${props.project.id}`;
  return (
    <ProjectFrame project={props.project} tab="usage" title="Usage">
      <h2>{usage ? `Usage, ${usage.from} to ${usage.to}` : 'Usage'}</h2>
      <ViewSwitch root={root} view="day" />
      {range.message ? <Notice kind="error">{range.message}</Notice> : null}
      <form method="get" action={`${root}/usage`} class="row-form filters" novalidate>
        <Field
          label="From (UTC day)"
          name="from"
          type="date"
          value={range.from}
          error={range.errors?.from}
          required={false}
        />
        <Field label="To (UTC day)" name="to" type="date" value={range.to} error={range.errors?.to} required={false} />
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      {usage ? (
        <>
          <p class="muted">
            Live: <strong>{usage.total.notifications}</strong> notifications, <strong>{usage.total.attempts}</strong>{' '}
            attempts, <strong>{usage.total.sent}</strong> sent, <strong>{usage.total.delivered}</strong> delivered.
            Test: <strong>{usage.total.test_notifications}</strong> notifications.
          </p>
          <div class="usage">
            <UsageChart
              id="usage-modes"
              title="Notifications per UTC day, live and test"
              days={usage.days}
              series={[
                { name: 'live notifications', kind: 'live', value: (day) => day.live.notifications },
                { name: 'test notifications', kind: 'test', value: (day) => day.test.notifications },
              ]}
            />
            <UsageChart
              id="usage-fates"
              title="Live attempts per UTC day, sent and delivered"
              days={usage.days}
              series={[
                { name: 'sent (written to a browser)', kind: 'sent', value: (day) => day.live.sent },
                { name: 'delivered (the browser confirmed)', kind: 'delivered', value: (day) => day.live.delivered },
              ]}
            />
          </div>
          <p id="usage-table-note" class="muted">
            The table below has every figure of the charts, newest day first.
          </p>
          <DataTable
            label="Usage per UTC day"
            caption="Usage per UTC day, live and test"
            class="usage-table"
            columns={[
              'Day (UTC)',
              { label: 'Live notifications', num: true },
              { label: 'Live attempts', num: true },
              { label: 'Sent', num: true },
              { label: 'Delivered', num: true },
              { label: 'Test notifications', num: true },
            ]}
          >
            {[...usage.days].reverse().map((day) => (
              <tr data-date={day.date}>
                <th scope="row">{day.date}</th>
                <td class="num">{day.live.notifications}</td>
                <td class="num">{day.live.attempts}</td>
                <td class="num">{day.live.sent}</td>
                <td class="num">{day.live.delivered}</td>
                <td class="num">{day.test.notifications}</td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
    </ProjectFrame>
  );
}
