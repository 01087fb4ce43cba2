/** @jsxImportSource hono/jsx */
import { type Child, createContext, useContext } from 'hono/jsx';
import { counterText } from '../client/length-counter.js';

/** What every page knows: where the dashboard lives and who is signed in. */
export interface PageContext {
  base: string;
  email: string | null;
  operator: boolean;
}

const pageContextJsx = createContext<PageContext>({ base: '/dashboard', email: null, operator: false });

/**
 * Hands the request's {@link PageContext} to every page below it: the app's renderer sets it once
 * per request, so no route passes it down by hand.
 */
export const PageContextProvider = pageContextJsx.Provider;

/** The {@link PageContext} of the page being rendered. */
export function usePage(): PageContext {
  return useContext(pageContextJsx);
}

/** The frame of every page: header, navigation, the one stylesheet and the one script. */
export function Layout(props: { title: string; children: Child }) {
  const ctx = usePage();
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>{`${props.title} · Tidings`}</title>
        <link rel="stylesheet" href={`${ctx.base}/assets/dashboard.css`} />
        <link rel="icon" href={`${ctx.base}/assets/icon.svg`} type="image/svg+xml" />
        <script src={`${ctx.base}/assets/dashboard.js`} defer />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href={ctx.email ? ctx.base : `${ctx.base}/login`}>
            Tidings
          </a>
          {ctx.email ? (
            <nav aria-label="Account">
              <a href={ctx.base}>Projects</a>
              {ctx.operator ? <a href={`${ctx.base}/operator`}>Operator</a> : null}
              <a href={`${ctx.base}/account`}>Account</a>
              <span class="who">{ctx.email}</span>
              <form method="post" action={`${ctx.base}/logout`} class="inline">
                <button type="submit" class="link">
                  Sign out
                </button>
              </form>
            </nav>
          ) : null}
        </header>
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
      </body>
    </html>
  );
}

/** A message at the top of a form: an error (role alert) or a notice. */
export function Notice(props: { kind: 'error' | 'info' | 'success'; children: Child }) {
  return (
    <div class={`notice ${props.kind}`} role={props.kind === 'error' ? 'alert' : 'status'}>
      {props.children}
    </div>
  );
}

/** A labelled input: every input of the dashboard has a visible label. */
export function Field(props: {
  label: string;
  name: string;
  type?: string;
  value?: string;
  autocomplete?: string;
  required?: boolean;
  hint?: string;
  error?: string | undefined;
  inputmode?: 'numeric' | 'email' | 'text';
  pattern?: string;
  minlength?: number;
  maxlength?: number;
  /**
   * The most characters the server takes. Unlike `maxlength`, which cuts a longer paste without a
   * word, it shows a counter and leaves the refusal of a longer value to the server, which says so.
   */
  limit?: number;
  autofocus?: boolean;
  /** The input's id, for a page with two fields of one name (in two forms). @default `field-${name}` */
  id?: string;
}) {
  const id = props.id ?? `field-${props.name}`;
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const counterId = props.limit ? `${id}-count` : undefined;
  const described = [hintId, counterId, errorId].filter(Boolean).join(' ') || undefined;
  const length = props.value?.length ?? 0;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value}
        autocomplete={props.autocomplete}
        required={props.required ?? true}
        inputmode={props.inputmode}
        pattern={props.pattern}
        minlength={props.minlength}
        maxlength={props.maxlength}
        data-limit={props.limit}
        data-counter={counterId}
        autofocus={props.autofocus}
        aria-describedby={described}
        aria-invalid={props.error ? 'true' : undefined}
      />
      {props.hint ? (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {props.limit ? (
        <p class={length > props.limit ? 'hint counter over' : 'hint counter'} id={counterId}>
          {counterText(length, props.limit)}
        </p>
      ) : null}
      {props.error ? (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

/**
 * Formats a time (an ISO string of the admin API, or epoch milliseconds) for a table, to the
 * second, so that the events of one minute are told apart: `2026-01-01 12:00:05 UTC`; with
 * `precise`, to the millisecond, so that requests of one second are: `2026-01-01 12:00:05.042 UTC`.
 */
export function formatTime(at: string | number | null, precise = false): string {
  if (at === null) return '—';
  return `${new Date(at)
    .toISOString()
    .slice(0, precise ? 23 : 19)
    .replace('T', ' ')} UTC`;
}

const RELATIVE_UNITS: ReadonlyArray<[limitSeconds: number, seconds: number, unit: string]> = [
  [90, 1, 's'],
  [90 * 60, 60, 'min'],
  [36 * 3600, 3600, 'h'],
  [Number.POSITIVE_INFINITY, 86_400, 'd'],
];

/** How long before (or after) `now` a time is, in one rounded unit: `5 s ago`, `3 min ago`, `in 2 h`. */
export function relativeTime(at: string | number, now: number): string {
  const seconds = (new Date(at).getTime() - now) / 1000;
  const size = Math.abs(seconds);
  if (size < 1) return 'now';
  const [, per, unit] = RELATIVE_UNITS.find(([limit]) => size < limit)!;
  const count = Math.round(size / per);
  return seconds < 0 ? `${count} ${unit} ago` : `in ${count} ${unit}`;
}

/**
 * A time element with the full ISO value for machines, the time to the second (to the
 * millisecond when `precise`) for people and,
 * beside it, how long ago that was when the page was made; null reads `never`.
 */
export function Time(props: { at: string | number | null; precise?: boolean }) {
  if (props.at === null) return <span class="muted">never</span>;
  // The day and the time of day each stay on one line; a narrow column may put them on two.
  const text = formatTime(props.at, props.precise);
  const cut = text.indexOf(' ');
  return (
    <>
      <time datetime={new Date(props.at).toISOString()}>
        {cut < 0 ? (
          text
        ) : (
          <>
            <span class="nowrap">{text.slice(0, cut)}</span> <span class="nowrap">{text.slice(cut + 1)}</span>
          </>
        )}
      </time>{' '}
      <span class="muted">({relativeTime(props.at, Date.now())})</span>
    </>
  );
}
