/** @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';

/**
 * A table of the dashboard: in a frame of its own that scrolls sideways on a narrow screen and
 * can be reached with the keyboard, named by `label` (also its caption for screen readers), with
 * one header cell per column and `children` as its rows.
 */
export function DataTable(props: { label: string; columns: readonly string[]; children?: Child }) {
  return (
    <section class="table-wrap" tabindex={0} aria-label={props.label}>
      <table>
        <caption class="visually-hidden">{props.label}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th scope="col">{column}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </section>
  );
}
