/** @jsxImportSource hono/jsx */

/** From this length a cut value can be focused, so that a keyboard can unfold it (the stylesheet's `.clip:focus`). */
const FOCUSABLE_FROM = 24;

/**
 * A value people choose and may make long (a name, a title, a URL, a recipient) in a table cell:
 * one line cut with an ellipsis, so that a row stays one row and no word is broken. The full value
 * stays reachable: in the `title` for a pointer, in the markup for screen readers, on the detail
 * page `href` leads to, and, without a link, by focusing it, which unfolds it.
 */
export function Clip(props: { text: string; href?: string; code?: boolean }) {
  const body = props.code ? <code>{props.text}</code> : props.text;
  if (props.href) {
    return (
      <a class="clip" href={props.href} title={props.text}>
        {body}
      </a>
    );
  }
  return (
    <span class="clip" title={props.text} tabindex={props.text.length >= FOCUSABLE_FROM ? 0 : undefined}>
      {body}
    </span>
  );
}
