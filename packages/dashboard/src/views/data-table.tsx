/** @jsxImportSource hono/jsx */
import { type Child, cloneElement, isValidElement } from 'hono/jsx';

/** A column of a {@link DataTable}: its header, read by screen readers alone when `hidden`. */
export interface Column {
  label: string;
  /** For a column whose cells name themselves (a row's actions): no visible header, no card label. */
  hidden?: boolean;
  /** Figures, set right and in tabular digits. */
  num?: boolean;
}

type Element = { tag: unknown; props: Record<string, unknown> };

function childrenOf(node: Child): Child[] {
  if (Array.isArray(node)) return node.flatMap(childrenOf);
  return node === null || node === undefined || typeof node === 'boolean' ? [] : [node];
}

function isTag(node: Child, ...tags: string[]): node is Child & Element {
  return isValidElement(node) && tags.includes((node as unknown as Element).tag as string);
}

/**
 * Each row's cells, labelled with their column's header (`data-label`): on a narrow screen a row
 * is a card and each value shows its label before it, so the labels come from the one list of
 * columns and cannot drift from the headers.
 */
function labelled(rows: Child, columns: readonly Column[]): Child[] {
  return childrenOf(rows).map((row) => {
    if (!isTag(row, 'tr')) return row;
    let index = 0;
    const cells = childrenOf(row.props.children as Child).map((cell) => {
      if (!isTag(cell, 'td', 'th')) return cell;
      const column = columns[index++];
      return column && !column.hidden ? cloneElement(cell as never, { 'data-label': column.label }) : cell;
    });
    return cloneElement(row as never, {}, ...cells);
  });
}

/**
 * A table of the dashboard: in a frame of its own that can be reached with the keyboard, named by
 * `label` (also its caption for screen readers unless `caption` says more), with one header cell
 * per column and `children` as its rows. Wide screens see a table; narrow ones a card per row
 * with every column's value under its header (see the stylesheet), so no column is out of sight.
 */
export function DataTable(props: {
  label: string;
  caption?: string;
  columns: readonly (string | Column)[];
  class?: string;
  children?: Child;
}) {
  const columns = props.columns.map((column) => (typeof column === 'string' ? { label: column } : column));
  return (
    <section class={props.class ? `table-wrap ${props.class}` : 'table-wrap'} tabindex={0} aria-label={props.label}>
      <table>
        <caption class="visually-hidden">{props.caption ?? props.label}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col" class={column.num ? 'num' : undefined}>
                {column.hidden ? <span class="visually-hidden">{column.label}</span> : column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{labelled(props.children, columns)}</tbody>
      </table>
    </section>
  );
}
