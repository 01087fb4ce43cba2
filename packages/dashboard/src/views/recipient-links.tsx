/** @jsxImportSource hono/jsx */
import { browserHref, recipientHref } from '../client/recipient-hrefs.js';
import { Clip } from './clip.js';

export { browserHref, recipientHref };

/** A recipient's id as a link to its page, cut to one line in a table cell. */
export function RecipientLink(props: { root: string; recipient: string }) {
  return <Clip text={props.recipient} href={recipientHref(props.root, props.recipient)} code />;
}

/** A browser's id as a link to its page, with a label beside it (`this tab`) when there is one. */
export function BrowserLink(props: { root: string; browserId: string; label?: string | null }) {
  return (
    <>
      <Clip text={props.browserId} href={browserHref(props.root, props.browserId)} code />
      {props.label ? (
        <>
          {' '}
          <span class="badge tab" data-browser-label>
            {props.label}
          </span>
        </>
      ) : null}
    </>
  );
}
