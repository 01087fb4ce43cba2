import { connect } from '@tidings/browser';
import { TidingsProvider } from '@tidings/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.jsx';
import './styles.css';

/** The page's connect token, from its own server (which knows who is signed in). */
async function getToken() {
  const response = await fetch('/api/token', { method: 'POST' });
  if (!response.ok) throw new Error(`token: ${response.status}`);
  return response.text();
}

/**
 * The signed-in user, as the server mints their tokens (server.js). With it, the tabs of a browser
 * share one connection and are one browser of the recipient; without it every tab is one.
 */
const recipient = 'demo-user';

// Tidings answers on this origin (embedded in the server), so the SDK's base URL is ours. Every
// notification is also an inbox item, which the list shows: nothing more to do with it here.
const connection = connect({ baseUrl: window.location.origin, recipient, getToken, onNotification: () => {} });

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <TidingsProvider connection={connection}>
      <App />
    </TidingsProvider>
  </StrictMode>,
);
