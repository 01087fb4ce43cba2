/** @jsxImportSource hono/jsx */
import type { ProjectObject, UsageObject } from '@tidings/core';
import { ProjectFrame } from './project-frame.js';

const WIDTH = 640;
const HEIGHT = 200;
const PAD_BOTTOM = 24;
const PAD_LEFT = 40;

/** A bar per UTC day of live notifications, drawn on the server as SVG: no script, no library. */
function UsageChart(props: { usage: UsageObject }) {
  const days = props.usage.days;
  const max = Math.max(1, ...days.map((day) => day.notifications));
  const slot = (WIDTH - PAD_LEFT) / Math.max(1, days.length);
  const barWidth = Math.max(2, slot * 0.7);
  const plot = HEIGHT - PAD_BOTTOM;
  return (
    <svg
      class="chart"
      viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
      role="img"
      aria-labelledby="usage-chart-title"
      preserveAspectRatio="xMidYMid meet"
    >
      <title id="usage-chart-title">
        {`Live notifications per UTC day, ${props.usage.from} to ${props.usage.to}; the table beside it has the figures.`}
      </title>
      <line x1={PAD_LEFT} y1={plot} x2={WIDTH} y2={plot} class="axis" />
      <text x={PAD_LEFT - 6} y={12} class="tick" text-anchor="end">
        {max}
      </text>
      <text x={PAD_LEFT - 6} y={plot} class="tick" text-anchor="end">
        0
      </text>
      {days.map((day, index) => {
        const height = Math.round((day.notifications / max) * (plot - 8));
        const x = PAD_LEFT + index * slot + (slot - barWidth) / 2;
        return (
          <rect x={x.toFixed(1)} y={plot - height} width={barWidth.toFixed(1)} height={height} class="bar">
            <title>{`${day.date}: ${day.notifications} notifications, ${day.attempts} attempts`}</title>
          </rect>
        );
      })}
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
  );
}

/** Live notifications and attempts per UTC day over the last 30 days: a chart and the table. */
export function UsagePage(props: { project: ProjectObject; usage: UsageObject }) {
  const { usage } = props;
  return (
    <ProjectFrame project={props.project} tab="usage" title="Usage">
      <h2>Usage, last 30 days</h2>
      <p class="muted">
        Live notifications and delivery attempts per UTC day. Test keys never count. Total:{' '}
        <strong>{usage.total.notifications}</strong> notifications, <strong>{usage.total.attempts}</strong> attempts.
      </p>
      <div class="usage">
        <UsageChart usage={usage} />
        <section class="table-wrap usage-table" tabindex={0} aria-label="Usage per UTC day">
          <table>
            <caption class="visually-hidden">Usage per UTC day</caption>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" class="num">
                  Notifications
                </th>
                <th scope="col" class="num">
                  Attempts
                </th>
              </tr>
            </thead>
            <tbody>
              {[...usage.days].reverse().map((day) => (
                <tr>
                  <td>{day.date}</td>
                  <td class="num">{day.notifications}</td>
                  <td class="num">{day.attempts}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      </div>
    </ProjectFrame>
  );
}
