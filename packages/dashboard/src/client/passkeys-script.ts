/**
 * The passkey forms' script. A form marked `data-webauthn` carries the options the server made
 * (with its challenge) in `data-options`; on submit, the browser asks the authenticator, and the
 * answer goes to the server in the form's hidden `response` field. Without this script the form
 * posts an empty answer, and the server says that passkeys need JavaScript.
 */
import { startAuthentication, startRegistration, WebAuthnError } from '@simplewebauthn/browser';

function describe(error: unknown): string {
  if (error instanceof WebAuthnError && error.code === 'ERROR_CEREMONY_ABORTED')
    return 'The passkey prompt was closed.';
  if (error instanceof Error && error.name === 'NotAllowedError') {
    return 'The passkey prompt was closed or timed out. Try again.';
  }
  if (error instanceof Error && error.name === 'InvalidStateError') return 'This passkey is added already.';
  return 'This browser could not use a passkey here. Try again, or use another way.';
}

function setUp(form: HTMLFormElement): void {
  const kind = form.dataset.webauthn;
  const field = form.querySelector<HTMLInputElement>('input[name="response"]');
  const status = form.querySelector<HTMLElement>('[data-webauthn-status]');
  if (!field || !form.dataset.options) return;
  let sending = false;
  form.addEventListener('submit', (event) => {
    if (sending) return;
    event.preventDefault();
    if (status) status.textContent = '';
    if (kind === 'register') {
      const name = form.querySelector<HTMLInputElement>('input[name="name"]');
      // An empty name is refused by the server without asking for a passkey first.
      if (name && name.value.trim() === '') {
        sending = true;
        form.submit();
        return;
      }
    }
    const optionsJSON = JSON.parse(form.dataset.options ?? '{}');
    const ask = kind === 'register' ? startRegistration({ optionsJSON }) : startAuthentication({ optionsJSON });
    ask.then(
      (answer) => {
        field.value = JSON.stringify(answer);
        sending = true;
        form.submit();
      },
      (error: unknown) => {
        if (status) status.textContent = describe(error);
      },
    );
  });
}

function start(): void {
  for (const form of document.querySelectorAll<HTMLFormElement>('form[data-webauthn]')) setUp(form);
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
