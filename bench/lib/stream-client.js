// A forked process that holds event streams open, as connected browsers would, and records
// when each notification event arrives. It uses raw `net` sockets and writes the GET by hand,
// so that 10 000 streams cost the client little: no http.Agent, no per-response objects.
//
// Messages from the parent:
//   { type: 'open', host, port, paths, concurrency, record, readyOn, localAddresses }  → { type: 'opened', ok, failed, errors, ms }
//   { type: 'collect' }                                       → { type: 'collected', events, ended, arrivals }
//   { type: 'close' }                                         → exits
// `arrivals` is [notificationId, wallClockMs][] when `record` is set (one per stream that got it).
// A stream counts as open at its `ready` event, or at its 200 head when `readyOn` is 'head' (for
// servers, such as Nchan, that send no event of their own when a stream opens).
import net from 'node:net';

const now = () => performance.timeOrigin + performance.now();

const sockets = [];
let events = 0;
let ended = 0;
let record = false;
let arrivals = [];

/** Decodes one HTTP/1.1 response carrying an event stream, chunked or not, as bytes arrive. */
class StreamReader {
  constructor(onReady, onFail, readyOnHead) {
    this.readyOnHead = readyOnHead;
    this.onReady = onReady;
    this.onFail = onFail;
    this.head = '';
    this.inBody = false;
    this.chunked = false;
    this.chunkLeft = 0; // bytes of data left in the current chunk
    this.sizeLine = '';
    this.afterData = 0; // CRLF bytes to skip after a chunk's data
    this.sse = '';
    this.ready = false;
  }

  feed(text, at) {
    if (!this.inBody) {
      this.head += text;
      const end = this.head.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = this.head.slice(0, end);
      const rest = this.head.slice(end + 4);
      this.head = '';
      const status = Number(head.slice(9, 12));
      if (status !== 200) {
        this.onFail(`status ${status}`);
        return;
      }
      this.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
      this.inBody = true;
      if (this.readyOnHead) {
        this.ready = true;
        this.onReady();
      }
      text = rest;
    }
    if (!this.chunked) {
      this.sseData(text, at);
      return;
    }
    let i = 0;
    while (i < text.length) {
      if (this.afterData > 0) {
        const skip = Math.min(this.afterData, text.length - i);
        this.afterData -= skip;
        i += skip;
      } else if (this.chunkLeft > 0) {
        const take = Math.min(this.chunkLeft, text.length - i);
        this.sseData(text.slice(i, i + take), at);
        this.chunkLeft -= take;
        i += take;
        if (this.chunkLeft === 0) this.afterData = 2;
      } else {
        const lineEnd = text.indexOf('\r\n', i);
        if (lineEnd === -1) {
          this.sizeLine += text.slice(i);
          return;
        }
        const size = Number.parseInt(this.sizeLine + text.slice(i, lineEnd), 16);
        this.sizeLine = '';
        i = lineEnd + 2;
        if (size === 0) return; // end of the response body
        this.chunkLeft = size;
      }
    }
  }

  sseData(text, at) {
    this.sse += text;
    let end = this.sse.indexOf('\n\n');
    while (end !== -1) {
      const block = this.sse.slice(0, end);
      this.sse = this.sse.slice(end + 2);
      this.event(block, at);
      end = this.sse.indexOf('\n\n');
    }
  }

  event(block, at) {
    // Nchan writes `event:` as the block's first line, the Node servers after `id:`.
    if (block.includes('\nevent: notification\n') || block.startsWith('event: notification\n')) {
      events++;
      if (record) {
        const start = block.indexOf('"notification_id":"');
        if (start !== -1) arrivals.push([block.slice(start + 19, start + 49), at]);
      }
    } else if (!this.ready && block.includes('\nevent: ready\n')) {
      this.ready = true;
      this.onReady();
    }
  }
}

function open({ host, port, paths, concurrency, readyOn, localAddresses = [] }) {
  const started = now();
  let next = 0;
  let inFlight = 0;
  let ok = 0;
  let failed = 0;
  const errors = [];
  return new Promise((resolve) => {
    const settle = () => {
      inFlight--;
      if (ok + failed === paths.length) {
        resolve({ ok, failed, errors, ms: now() - started });
        return;
      }
      launch();
    };
    const launch = () => {
      while (inFlight < concurrency && next < paths.length) {
        const path = paths[next++];
        inFlight++;
        let settled = false;
        // Spread over several source addresses, each with ephemeral ports of its own, when asked.
        const localAddress = localAddresses.length > 0 ? localAddresses[next % localAddresses.length] : undefined;
        const socket = net.connect({ host, port, ...(localAddress ? { localAddress } : {}) });
        const fail = (reason) => {
          if (!settled) {
            settled = true;
            failed++;
            if (errors.length < 5) errors.push(reason);
            socket.destroy();
            settle();
          }
        };
        const reader = new StreamReader(
          () => {
            if (!settled) {
              settled = true;
              ok++;
              settle();
            }
          },
          fail,
          readyOn === 'head',
        );
        socket.setEncoding('latin1');
        socket.setNoDelay(true);
        socket.on('connect', () => {
          socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
        });
        socket.on('data', (text) => reader.feed(text, now()));
        socket.on('error', (error) => fail(error.code ?? String(error)));
        socket.on('close', () => {
          if (settled && reader.ready) ended++;
          fail('closed before ready');
        });
        sockets.push(socket);
      }
    };
    if (paths.length === 0) resolve({ ok, failed, errors, ms: 0 });
    else launch();
  });
}

process.on('message', async (message) => {
  switch (message.type) {
    case 'open': {
      record = message.record === true;
      const result = await open(message);
      process.send({ type: 'opened', ...result });
      break;
    }
    case 'collect': {
      process.send({ type: 'collected', events, ended, arrivals });
      arrivals = [];
      break;
    }
    case 'close': {
      for (const socket of sockets) socket.destroy();
      process.exit(0);
    }
  }
});
process.on('disconnect', () => process.exit(0));
