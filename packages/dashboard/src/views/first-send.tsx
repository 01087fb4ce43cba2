/** @jsxImportSource hono/jsx */
import type { ProjectObject } from '@tidings/core';
import { counterText } from '../client/length-counter.js';
import { FIRST_SEND_BODY, FIRST_SEND_TITLE } from '../routes/first-send.js';
import { Field, Notice, usePage } from './layout.js';

/** Where the key of the first send comes from: the key on screen, or one the person pastes. */
export type FirstSendKey = { from: 'screen'; mode: 'live' | 'test' } | { from: 'paste'; activeKeys: number };

/** What the first-send panel needs to know. */
export interface FirstSendProps {
  project: ProjectObject;
  /** The recipient this tab connects as: `dashboard:<account id>`. */
  recipient: string;
  /** The Tidings API's address, as the curl and the SDK reach it. */
  apiUrl: string;
  source: FirstSendKey;
  /**
   * Folded under its heading, and connecting this tab only once unfolded: a project that has sent
   * already keeps the panel without every visit of its page becoming a browser of the recipient.
   */
  collapsed?: boolean;
}

/** The longest title and body of a send (docs/api.md): the counters under the panel's fields. */
const TITLE_LIMIT = 200;
const BODY_LIMIT = 2000;

/** The `curl` that sends to the dashboard's recipient, with the key from the environment. */
export function firstSendCurl(apiUrl: string, recipient: string): string {
  const body = JSON.stringify({ recipient, title: 'Hello from Tidings' });
  return `curl -X POST ${apiUrl}/v1/notifications -H "Authorization: Bearer $TIDINGS_API_KEY" -H "Content-Type: application/json" -d '${body}'`;
}

/**
 * "Send a test notification": this tab becomes a connected browser of the account's own
 * recipient (the browser SDK, `tidings.global.js`), a button sends to it through the public API,
 * and the sends to it appear below with their attempts and receipts, from the live view's
 * stream. With JavaScript off it says so and still shows the curl (which then answers 409). The
 * tab disconnects its browser when it closes, so that a later send does not wait on it.
 */
export function FirstSendPanel(props: FirstSendProps) {
  const ctx = usePage();
  const { project, recipient, apiUrl, source: key } = props;
  const root = `${ctx.base}/projects/${project.id}`;
  const curl = firstSendCurl(apiUrl, recipient);
  const content = (
    <>
      <p>
        While this page is open, and with JavaScript on, this browser tab is a connected browser of the recipient{' '}
        <code>{recipient}</code> (yours, in this project): what is sent to it appears here, with its delivery attempt
        and receipts.
      </p>
      <noscript>
        <Notice kind="info">
          The live test needs JavaScript: with it, this tab connects as a browser of <code>{recipient}</code> and shows
          the notification as it arrives. Without it no browser of that recipient is connected, so the curl below
          answers 409 NO_CONNECTED_BROWSER.
        </Notice>
      </noscript>
      <div class="first-send-controls" data-first-send-controls hidden>
        {key.from === 'paste' ? (
          key.activeKeys === 0 ? (
            <p class="muted" id="first-send-no-key">
              Create a key above first: its page sends with it in one click.
            </p>
          ) : (
            <div class="field">
              <label for="first-send-key">API key of this project</label>
              <input
                id="first-send-key"
                type="password"
                autocomplete="off"
                spellcheck={false}
                aria-describedby="first-send-key-hint"
              />
              <p class="hint" id="first-send-key-hint">
                Paste a key of this project: it is used for this one send and kept nowhere.
              </p>
            </div>
          )
        ) : key.mode === 'test' ? (
          <p class="muted">
            This is a test key: the send is recorded with its attempt <code>accepted</code>, and nothing is delivered.
          </p>
        ) : null}
        {key.from === 'paste' && key.activeKeys === 0 ? null : (
          <>
            <Field
              label="Title"
              name="title"
              id="first-send-title-field"
              value={FIRST_SEND_TITLE}
              required={false}
              limit={TITLE_LIMIT}
            />
            <div class="field">
              <label for="first-send-body">Body</label>
              <textarea
                id="first-send-body"
                name="body"
                rows={2}
                data-limit={BODY_LIMIT}
                data-counter="first-send-body-count"
                aria-describedby="first-send-body-count"
              >
                {FIRST_SEND_BODY}
              </textarea>
              <p class="hint counter" id="first-send-body-count">
                {counterText(FIRST_SEND_BODY.length, BODY_LIMIT)}
              </p>
            </div>
          </>
        )}
        {key.from === 'paste' && key.activeKeys === 0 ? null : (
          <p>
            <button type="button" id="first-send-button" disabled>
              Send a test notification
            </button>
          </p>
        )}
        <p id="first-send-status" class="count" role="status" aria-live="polite" data-status="connecting">
          Connecting this tab…
        </p>
        <ul id="first-send-list" class="live-list" aria-label="Sends to this tab" />
      </div>
      <h3>From a terminal</h3>
      <p>
        With the key in the environment as <code>TIDINGS_API_KEY</code>, this sends to the same recipient while this
        page is open:
      </p>
      <pre class="curl">
        <code id="first-send-curl">{curl}</code>
      </pre>
    </>
  );
  return (
    <section
      class="card first-send"
      id="first-send"
      aria-labelledby="first-send-title"
      data-api-url={apiUrl}
      data-recipient={recipient}
      data-token-url={`${root}/first-send/token`}
      data-send-url={`${root}/first-send/send`}
      data-stream={`${root}/live/stream?recipient=${encodeURIComponent(recipient)}`}
      data-notification-base={`${root}/notifications/`}
      data-key-from={key.from}
    >
      <h2 id="first-send-title">Send a test notification</h2>
      {props.collapsed ? (
        <details data-first-send-details>
          <summary>Connect this tab and send a test notification to it</summary>
          {content}
        </details>
      ) : (
        content
      )}
      <script src={`${ctx.base}/assets/tidings.global.js`} defer />
      <script src={`${ctx.base}/assets/first-send.js`} defer />
    </section>
  );
}
