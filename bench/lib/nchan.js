// Starts nginx with the Nchan module as a peer of the fan-out: one unprivileged process
// (`master_process off`, so the one process is the worker and its RSS is all of nginx's), its own
// prefix, configuration, pid and log files in a temp dir, on a free port of 127.0.0.1.
// Subscribers: GET /v1/connect/<recipient> as an EventSource stream; publisher: POST
// /pub/<recipient>. Messages are kept in the channel's buffer (the last 10, for an hour) so that
// a stream reopening with Last-Event-ID resumes, as Tidings' streams do.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { freePort, onCleanup, sleep, tempDir } from './common.js';

export const nginxBin = process.env.BENCH_NGINX || '/usr/sbin/nginx';
export const nchanModule = process.env.BENCH_NCHAN_MODULE || '/usr/lib/nginx/modules/ngx_nchan_module.so';

export function nchanAvailable() {
  return existsSync(nginxBin) && existsSync(nchanModule);
}

export async function startNchan(label = 'nchan') {
  const dir = tempDir(label);
  for (const sub of ['logs', 'tmp']) mkdirSync(join(dir, sub));
  const port = await freePort();
  const conf = `
load_module ${nchanModule};
daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 20000; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  nchan_message_buffer_length 10;
  nchan_message_timeout 1h;
  server {
    listen 127.0.0.1:${port};
    location ~ ^/v1/connect/([^/]+)$ {
      nchan_subscriber eventsource;
      nchan_channel_id $1;
      nchan_subscriber_first_message newest;
      nchan_eventsource_event notification;
    }
    location ~ ^/pub/([^/]+)$ {
      nchan_publisher;
      nchan_channel_id $1;
    }
  }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const child = spawn(
    'bash',
    [
      '-c',
      'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"',
      nginxBin,
      '-p',
      dir,
      '-c',
      join(dir, 'nginx.conf'),
      '-e',
      join(dir, 'logs/error.log'),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const server = {
    label,
    child,
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  onCleanup(() => server.stop());
  // Ready when the port answers.
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) {
      const log = existsSync(join(dir, 'logs/error.log')) ? readFileSync(join(dir, 'logs/error.log'), 'utf8') : '';
      throw new Error(`nginx exited (${child.exitCode}): ${stderr} ${log}`);
    }
    const ok = await new Promise((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return server;
    await sleep(100);
  }
  throw new Error(`nginx did not listen on ${port}: ${stderr}`);
}
