import { useInbox, useUnreadCount } from '@tidings/react';
import { useEffect, useId, useState } from 'react';

function BellIcon() {
  return (
    <svg className="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z" />
    </svg>
  );
}

/** The bell: a button that opens and closes the list, with the unread count read out as it changes. */
function Bell({ open, onToggle, controls }) {
  const { unread, loading } = useUnreadCount();
  return (
    <button type="button" className="bell" aria-expanded={open} aria-controls={controls} onClick={onToggle}>
      <BellIcon /> Notifications{' '}
      <span id="unread-count" className={unread > 0 ? 'badge badge-on' : 'badge'} aria-live="polite" aria-atomic="true">
        {loading ? '…' : unread}
        <span className="visually-hidden"> unread</span>
      </span>
    </button>
  );
}

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function Item({ item, onRead, onUnread, onArchive }) {
  const read = item.read_at !== null;
  const hidden = <span className="visually-hidden"> ({item.title})</span>;
  return (
    <li className={read ? 'item' : 'item item-unread'}>
      <div className="item-text">
        <p className="item-title">
          {read ? null : <span className="visually-hidden">Unread: </span>}
          {item.title}
        </p>
        {item.body ? <p>{item.body}</p> : null}
        <p className="item-time">
          <time dateTime={item.created_at}>{timeFormat.format(new Date(item.created_at))}</time>
        </p>
      </div>
      <div className="item-actions">
        {read ? (
          <button type="button" onClick={() => onUnread(item.id)}>
            Mark unread{hidden}
          </button>
        ) : (
          <button type="button" onClick={() => onRead(item.id)}>
            Mark read{hidden}
          </button>
        )}
        <button type="button" onClick={() => onArchive(item.id)}>
          Archive{hidden}
        </button>
      </div>
    </li>
  );
}

/** The list: the items shown are marked seen, the next page is a button away. */
function Inbox({ id, unreadOnly }) {
  const inbox = useInbox({ unread: unreadOnly, pageSize: 10 });
  const { items, hasMore, loading, error, markSeen } = inbox;

  useEffect(() => {
    const unseen = items.filter((item) => item.seen_at === null).map((item) => item.id);
    if (unseen.length > 0) void markSeen(unseen);
  }, [items, markSeen]);

  return (
    <section id={id} className="inbox" aria-labelledby={`${id}-heading`} aria-busy={loading}>
      <div className="inbox-head">
        <h2 id={`${id}-heading`}>Notifications</h2>
        <button type="button" onClick={inbox.markAllRead} disabled={items.length === 0}>
          Mark all read
        </button>
      </div>
      {error ? <p role="alert">Something went wrong: {error.message}</p> : null}
      {items.length === 0 && !loading ? <p>Nothing here yet.</p> : null}
      <ul className="items">
        {items.map((item) => (
          <Item
            key={item.id}
            item={item}
            onRead={inbox.markRead}
            onUnread={inbox.markUnread}
            onArchive={inbox.archive}
          />
        ))}
      </ul>
      {hasMore ? (
        <button type="button" onClick={inbox.loadMore} disabled={loading}>
          Show older
        </button>
      ) : null}
    </section>
  );
}

/** Asks the server to send the demo user a notification, as your back end would. */
function SendButton() {
  const [status, setStatus] = useState('');
  async function send() {
    setStatus('Sending…');
    const response = await fetch('/api/send', { method: 'POST' }).catch(() => null);
    setStatus(response?.ok ? 'Sent.' : 'The notification could not be sent.');
  }
  return (
    <div className="send">
      <button type="button" onClick={send}>
        Send a notification
      </button>
      <p role="status">{status}</p>
    </div>
  );
}

export function App() {
  const [open, setOpen] = useState(true);
  const [unreadOnly, setUnreadOnly] = useState(false);
  const panel = useId();
  const filter = useId();
  return (
    <>
      <header className="top">
        <h1>Inbox demo</h1>
        <Bell open={open} onToggle={() => setOpen(!open)} controls={panel} />
      </header>
      <main className="page">
        <p>
          Signed in as <strong>demo-user</strong>. Notifications sent to them appear below, on every tab and device.
        </p>
        <SendButton />
        <p className="filter">
          <input
            id={filter}
            type="checkbox"
            checked={unreadOnly}
            onChange={(event) => setUnreadOnly(event.target.checked)}
          />
          <label htmlFor={filter}>Unread only</label>
        </p>
        {open ? <Inbox id={panel} unreadOnly={unreadOnly} /> : null}
      </main>
    </>
  );
}
