/** The dashboard's one stylesheet: calm colours, readable type, no framework. */
export const stylesheet = `
:root {
  --ink: #1d2522; --muted: #5b6762; --line: #d9e0dc; --bg: #f6f8f7; --card: #fff;
  --brand: #2f5d50; --brand-ink: #fff; --danger: #a3261b; --danger-bg: #fbeceb;
  --ok: #1f6b3a; --ok-bg: #e7f4ec; --info-bg: #eef3f8; --info: #23496b; --focus: #1a73e8;
  color-scheme: light;
}
* { box-sizing: border-box; }
html { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
body { margin: 0; }
a { color: var(--brand); text-underline-offset: 2px; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, .table-wrap:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em; }
.top { display: flex; align-items: center; justify-content: space-between; gap: 1rem; padding: 0.75rem 1.5rem; background: var(--card); border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; font-size: 1.15rem; color: var(--ink); text-decoration: none; letter-spacing: 0.01em; }
.top nav { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; }
.who { color: var(--muted); }
/* One content width on every page, so that moving between tabs does not move the content. */
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0.5rem 0 1rem; display: flex; align-items: center; gap: 0.6rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.6rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 0.5rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 1.25rem 1.5rem; margin: 1.25rem 0; }
.card > h1:first-child, .card > h2:first-child { margin-top: 0; }
.narrow { max-width: 30rem; margin-left: auto; margin-right: auto; }
.field { margin: 0 0 1rem; display: flex; flex-direction: column; gap: 0.3rem; min-width: 14rem; }
label, legend { font-weight: 600; }
input, select { font: inherit; padding: 0.5rem 0.65rem; border: 1px solid #9aa7a1; border-radius: 6px; background: #fff; color: var(--ink); }
input[aria-invalid="true"] { border-color: var(--danger); }
.hint { color: var(--muted); font-size: 0.9rem; margin: 0; }
.field-error { color: var(--danger); font-size: 0.9rem; margin: 0; font-weight: 600; }
.counter { font-variant-numeric: tabular-nums; }
.counter.over { color: var(--danger); font-weight: 600; }
button, .button { font: inherit; font-weight: 600; padding: 0.55rem 1rem; border-radius: 6px; border: 1px solid var(--brand); background: var(--brand); color: var(--brand-ink); cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--brand); }
button.danger { background: var(--danger); border-color: var(--danger); }
button.link { background: none; border: none; color: var(--brand); padding: 0; font-weight: 400; text-decoration: underline; }
button.small { padding: 0.2rem 0.6rem; font-size: 0.9rem; }
.danger-link { color: var(--danger); }
form.inline { display: inline; }
.row-form { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: flex-end; }
.row-form > button { margin-bottom: 1rem; }
.secondary-form { margin-top: 0.75rem; }
textarea { font: inherit; padding: 0.5rem 0.65rem; border: 1px solid #9aa7a1; border-radius: 6px; background: #fff; color: var(--ink); max-width: 100%; resize: vertical; }
textarea[aria-invalid="true"] { border-color: var(--danger); }
.pager { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; margin: 0.75rem 0 1.5rem; }
fieldset.events { border: none; padding: 0; margin: 0 0 1rem; display: grid; gap: 0.4rem; }
fieldset.events legend { font-weight: 600; margin-bottom: 0.4rem; padding: 0; }
fieldset.events label { font-weight: 400; display: flex; flex-wrap: wrap; gap: 0.35rem; align-items: baseline; }
.endpoint-url code { overflow-wrap: anywhere; word-break: break-all; }
.endpoint-actions { flex-wrap: wrap; margin: 0 0 1.5rem; }
fieldset.modes { border: none; padding: 0; margin: 0 0 1rem; display: flex; gap: 1rem; align-items: center; }
fieldset.modes legend { float: left; margin-right: 0.5rem; }
fieldset.modes label { font-weight: 400; display: flex; gap: 0.35rem; align-items: center; }
.notice { border-radius: 8px; padding: 0.75rem 1rem; margin: 0 0 1rem; border: 1px solid; }
.notice.error { background: var(--danger-bg); border-color: #e6b3ae; color: #6e1a12; }
.notice.info { background: var(--info-bg); border-color: #c4d3e3; color: var(--info); }
.notice.success { background: var(--ok-bg); border-color: #b5dbc3; color: #174f2b; }
.notice a { color: inherit; }
.links { display: flex; flex-direction: column; gap: 0.25rem; }
.muted { color: var(--muted); }
.count { color: var(--muted); font-weight: 600; }
.empty { color: var(--muted); font-style: italic; }
.crumbs { color: var(--muted); margin: 0; font-size: 0.9rem; }
.badge { display: inline-block; font-size: 0.8rem; font-weight: 600; padding: 0.1rem 0.5rem; border-radius: 999px; background: #eef1ef; color: var(--ink); border: 1px solid var(--line); }
.badge.live { background: #e8eefb; color: #1e3f86; border-color: #c7d4f2; }
.badge.test { background: #fdf3e2; color: #6d4507; border-color: #f0dab0; }
.badge.ok { background: var(--ok-bg); color: var(--ok); border-color: #b5dbc3; }
.badge.danger { background: var(--danger-bg); color: var(--danger); border-color: #e6b3ae; }
.badge.muted-badge { color: var(--muted); }
.danger-text { color: var(--danger); }
.refusal-note { color: var(--muted); font-size: 0.9rem; }
.timeline { list-style: none; padding: 0; margin: 0 0 1.5rem; border-left: 2px solid var(--line); }
.timeline li { padding: 0.35rem 0 0.35rem 0.9rem; overflow-wrap: anywhere; }
.timeline li[data-tone="danger"] { border-left: 3px solid var(--danger); margin-left: -2px; }
.recipient-links, .webhook-links { padding-left: 1.2rem; overflow-wrap: anywhere; }
.export-links { overflow-wrap: anywhere; }
.badge.status-delivered { background: var(--ok-bg); color: var(--ok); }
.badge.status-failed, .badge.status-expired { background: var(--danger-bg); color: var(--danger); }
.project-list { list-style: none; padding: 0; margin: 0; }
.project-list li { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 0.75rem 1rem; margin-bottom: 0.5rem; display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; }
.project-list li > a { font-weight: 600; font-size: 1.05rem; }
/* The tabs stay one row: on a phone the row scrolls sideways rather than wrapping or widening the page. */
.tabs { display: flex; gap: 0.25rem; border-bottom: 1px solid var(--line); margin: 0.5rem 0 1rem; overflow-x: auto; scrollbar-width: thin; }
.tabs a { padding: 0.5rem 0.9rem; text-decoration: none; color: var(--muted); border-bottom: 3px solid transparent; white-space: nowrap; flex: none; }
.tabs a[aria-current="page"] { color: var(--ink); border-bottom-color: var(--brand); font-weight: 600; }
.table-wrap { position: relative; overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.55rem 0.8rem; border-bottom: 1px solid var(--line); vertical-align: top; }
tbody tr:last-child td { border-bottom: none; }
th { font-size: 0.85rem; color: var(--muted); font-weight: 600; background: #fafbfa; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.35rem 1.25rem; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; }
.reveal .secret-row { display: flex; gap: 0.75rem; align-items: center; flex-wrap: wrap; margin: 0.5rem 0; }
.secret { background: #f1f4f2; border: 1px dashed #9aa7a1; padding: 0.6rem 0.8rem; border-radius: 6px; font-size: 1rem; word-break: break-all; user-select: all; }
.payload { background: var(--card); border: 1px solid var(--line); padding: 0.9rem 1rem; border-radius: 8px; overflow-x: auto; } .payload pre { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; } .payload:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
pre.curl { background: #1d2522; color: #e8efeb; padding: 0.9rem 1rem; border-radius: 8px; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.recovery-codes { list-style: none; padding: 0; margin: 0.5rem 0 0; display: grid; grid-template-columns: repeat(auto-fill, minmax(9rem, 1fr)); gap: 0.5rem; font-size: 1.05rem; }
.actions { display: flex; gap: 1rem; align-items: center; }
.usage { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 1.25rem; align-items: start; }
@media (max-width: 760px) { .usage { grid-template-columns: 1fr; } }
.usage-figure { margin: 0; } .usage-figure figcaption { font-weight: 600; margin-bottom: 0.4rem; }
.legend { list-style: none; padding: 0; margin: 0.4rem 0 0; display: flex; flex-wrap: wrap; gap: 0.3rem 1rem; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; border-radius: 2px; vertical-align: -0.1em; }
.swatch.live, .swatch.delivered { background: var(--brand); } .swatch.test { background: #9a6b12; } .swatch.sent { background: #8fb3a7; }
.chart .bar.test { fill: #9a6b12; } .chart .bar.sent { fill: #8fb3a7; }
.usage-table { max-height: 26rem; overflow-y: auto; }
.chart { width: 100%; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
.chart .bar { fill: var(--brand); }
.chart .bar:hover { fill: #45806f; }
.chart .axis { stroke: #9aa7a1; stroke-width: 1; }
.chart .tick { fill: var(--muted); font-size: 11px; }
.chart .grid { stroke: #e3e8e5; stroke-width: 1; }
.chart .hit { fill: transparent; }
.chart .bar.over { fill: var(--danger); }
.chart .bar-link:hover .bar, .chart .bar-link:focus .bar { fill: #45806f; }
.chart .bar-link:hover .bar.over, .chart .bar-link:focus .bar.over { fill: #7d1d15; }
.chart .bar-link:focus { outline: none; } .chart .bar-link:focus-visible .hit { fill: none; stroke: var(--focus); stroke-width: 3; }
.chart .limit line { stroke: var(--danger); stroke-width: 1.5; stroke-dasharray: 6 4; } .chart .limit text { fill: var(--danger); font-size: 11px; font-weight: 600; }
.swatch.limit { background: none; border-top: 2px dashed var(--danger); height: 0; vertical-align: 0.25em; }
.view-switch { display: flex; gap: 0.75rem; margin: 0 0 0.75rem; } .view-switch a[aria-current="page"] { font-weight: 600; color: var(--ink); text-decoration: none; }
.live-list { list-style: none; padding: 0; margin: 0; }
.live-list li { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 0.5rem 0.8rem; margin-bottom: 0.4rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
[hidden] { display: none !important; }
.skip-link { position: absolute; left: 0.5rem; top: -3rem; z-index: 10; background: var(--card); color: var(--brand); padding: 0.5rem 0.9rem; border: 2px solid var(--focus); border-radius: 6px; }
.skip-link:focus { top: 0.5rem; }
main:focus { outline: none; }
/* Names people choose (projects, keys, recipients, emails) may be long and have no spaces: they wrap. */
h1, h2, .crumbs, .who, dd, .project-list li > a, .live-list li, .notice, .card p { overflow-wrap: anywhere; }
h1 > *, .project-list li > * { min-width: 0; }
/* A table keeps a readable width and scrolls inside its box when it has more columns than fit. */
.table-wrap > table { min-width: 36rem; }
input, select { max-width: 100%; }
/* A table never breaks a word: a header is as wide as its words (the column's least width), and a
   long value is one line cut with an ellipsis (.clip) whose full text is in its title, on focus
   and on the page it links to. */
th, td { overflow-wrap: normal; word-break: normal; }
th { white-space: nowrap; }
td code, td .badge, td button, td .danger-link, .nowrap { white-space: nowrap; }
.clip { display: block; max-width: 13rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.clip:focus-visible { white-space: normal; overflow-wrap: anywhere; }
.clip code { white-space: inherit; }
/* On a phone each row is a card with every column's value after its header (data-label), so that
   no column is out of sight, as a table's columns past the first would be. */
@media (max-width: 600px) {
  .table-wrap { overflow-x: visible; background: none; border: none; border-radius: 0; }
  .table-wrap > table { min-width: 0; }
  .table-wrap table, .table-wrap tbody, .table-wrap tr, .table-wrap td, .table-wrap tbody th { display: block; }
  .table-wrap thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  .table-wrap tbody tr { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 0.4rem 0.8rem; margin-bottom: 0.6rem; }
  .table-wrap td, .table-wrap tbody th { padding: 0.3rem 0; border: none; text-align: left; background: none; font-size: 1rem; color: var(--ink); }
  /* The label above its value, so that the value has the card's whole width: an event type or a time is one word. */
  .table-wrap [data-label]::before { content: attr(data-label) / ""; display: block; color: var(--muted); font-size: 0.8rem; font-weight: 600; }
  .clip { max-width: 100%; }
}
@media (max-width: 560px) {
  .top { padding: 0.6rem 1rem; flex-wrap: wrap; }
  main { padding: 1rem; }
  .card { padding: 1rem; }
  .field { min-width: 0; width: 100%; }
  .facts { grid-template-columns: 1fr; gap: 0.1rem; }
  .facts dd { margin-bottom: 0.5rem; }
}
`;
