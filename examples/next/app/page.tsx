import Script from 'next/script';

// The page connects as ada and shows each notification: POST /hello/ada sends one.
const connect = `
const tidings = Tidings.connect({
  baseUrl: location.origin + '/notify',
  recipient: 'ada',
  getToken: async () => (await (await fetch('/token/ada', { method: 'POST' })).json()).token,
  onNotification: (n) => {
    const item = document.createElement('li');
    item.textContent = n.title;
    document.getElementById('notifications').append(item);
    tidings.displayed(n.attempt_id);
  },
});
document.getElementById('send').onclick = () => fetch('/hello/ada', { method: 'POST' });`;

export default function Page() {
  return (
    <main>
      <h1>Tidings on Next.js</h1>
      <button id="send" type="button">
        Send ada a notification
      </button>
      <ul id="notifications" />
      <Script src="/tidings.global.js" strategy="afterInteractive" />
      <Script id="connect" strategy="lazyOnload">
        {connect}
      </Script>
    </main>
  );
}
