/**
 * The element's shadow styles. Every colour, the font and the sizes come from custom properties
 * of the host (`--tidings-inbox-*`), so that a page themes the element without reaching into it;
 * `::part()` reaches the rest.
 */
export const styles = `
:host {
  --accent: var(--tidings-inbox-accent, #1d4ed8);
  --on-accent: var(--tidings-inbox-on-accent, #fff);
  --bg: var(--tidings-inbox-background, #fff);
  --fg: var(--tidings-inbox-color, #111827);
  --muted: var(--tidings-inbox-muted-color, #4b5563);
  --line: var(--tidings-inbox-border-color, #d1d5db);
  --hover: var(--tidings-inbox-hover-background, #f3f4f6);
  --radius: var(--tidings-inbox-radius, 8px);
  display: inline-block;
  position: relative;
  font: var(--tidings-inbox-font, 14px/1.4 system-ui, sans-serif);
  color: var(--fg);
}
[hidden] { display: none !important; }
button { font: inherit; color: inherit; cursor: pointer; }
button:focus-visible, [tabindex]:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
[part~=bell] {
  position: relative; display: grid; place-items: center; width: 40px; height: 40px; padding: 0;
  border: 1px solid var(--line); border-radius: 50%; background: var(--bg);
}
[part~=bell] svg { width: 22px; height: 22px; fill: currentColor; }
[part~=badge] {
  position: absolute; top: -4px; right: -6px; min-width: 20px; height: 20px; padding: 0 5px;
  box-sizing: border-box; border-radius: 10px; background: var(--accent); color: var(--on-accent);
  font-size: 12px; font-weight: 600; line-height: 20px; text-align: center;
}
[part~=panel] {
  position: fixed; z-index: 1000; display: flex; flex-direction: column; box-sizing: border-box;
  width: min(var(--tidings-inbox-width, 24rem), calc(100vw - 16px));
  background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: var(--radius);
  box-shadow: 0 10px 30px rgb(0 0 0 / 0.15); overflow: hidden;
}
[part~=header] {
  display: flex; align-items: center; justify-content: space-between; gap: 8px;
  padding: 10px 12px; border-bottom: 1px solid var(--line);
}
[part~=heading] { margin: 0; font-size: 1em; font-weight: 600; }
[part~=mark-all], [part~=action] {
  padding: 4px 8px; border: 1px solid var(--line); border-radius: 4px; background: var(--bg);
  font-size: 0.86em;
}
[part~=scroller] { flex: 1 1 auto; min-height: 0; overflow-y: auto; overscroll-behavior: contain; }
[part~=list] { list-style: none; margin: 0; padding: 0; }
[part~=item] { border-bottom: 1px solid var(--line); }
[part~=open] {
  display: grid; grid-template-columns: 10px 1fr; column-gap: 8px; width: 100%; padding: 10px 12px 4px;
  border: 0; background: none; text-align: left;
}
[part~=open]:hover { background: var(--hover); }
[part~=marker] { width: 8px; height: 8px; margin-top: 6px; border-radius: 50%; grid-row: span 3; }
[part~=unread] [part~=marker] { background: var(--accent); }
[part~=title] { overflow-wrap: anywhere; }
[part~=unread] [part~=title] { font-weight: 600; }
[part~=body] { color: var(--muted); overflow-wrap: anywhere; }
[part~=time] { color: var(--muted); font-size: 0.86em; }
[part~=actions] { display: flex; gap: 6px; padding: 2px 12px 10px 30px; }
[part~=empty], [part~=offline], [part~=loading] { margin: 0; padding: 16px 12px; color: var(--muted); text-align: center; }
[part~=offline] { padding: 6px 12px; border-bottom: 1px solid var(--line); }
.sentinel { height: 1px; }
`;
