import { adminCommands } from './admin-commands.js';
import { migrateUsage } from './migrate-command.js';
import { secretsUsage } from './secrets-command.js';

/** The serve command's usage lines (its flags are parsed in serve-command.ts). */
export const serveUsage = {
  synopsis:
    '[--port 8787] [--host 127.0.0.1] [--trust-proxy N] [--rate-limit-headers draft|draft-7|legacy] [--config FILE] [--redis URL | --redis-cluster HOST:PORT,…] [--metrics HOST:PORT] [--demo] [--sqlite-synchronous full] [--max-semi-space-size 8] [--smtp URL] [--signup open|invite|closed] [--no-dashboard] [--vapid-subject mailto:…|https://…] [--push-allow-hosts H,…] [--webhooks-allow-http] [--webhooks-allow-private]',
  summary: 'Run the Tidings server on the database',
  details: [
    '--port N         port to listen on; 0 picks a free one (default: $TIDINGS_PORT, else 8787)',
    '--host HOST      address to bind (default 127.0.0.1)',
    '--trust-proxy N  proxy hops to believe in X-Forwarded-For (default 0)',
    '--rate-limit-headers draft|draft-7|legacy  RateLimit header form (default draft)',
    '--config FILE    JSON file of Tidings options (limits, publicUrl, trustProxy, …)',
    '                 and "secretsKeyFile", a file of secrets keys, one per line (as TIDINGS_SECRETS_KEY_FILE)',
    '--redis URL      Redis for the shared limiter and the hub of many servers (default: $TIDINGS_REDIS_URL)',
    '--redis-cluster HOST:PORT,HOST:PORT',
    '                 a Redis Cluster (7 or newer) instead: some of its nodes, the others are found',
    '                 (default: $TIDINGS_REDIS_CLUSTER)',
    '--redis-unreachable fallback|refuse',
    '                 while Redis is out of reach: count limits in process, or answer 503 (default fallback)',
    '--metrics HOST:PORT  serve Prometheus metrics at /metrics on a listener of its own',
    '                 (default: $TIDINGS_METRICS, else off)',
    '--demo           create a demo account, project and keys on first run, print a curl',
    '--sqlite-synchronous full|normal',
    '                 full (default): a 201 is on disk, power loss included; normal: faster,',
    '                 survives a crash of the process but not a power loss',
    "--max-semi-space-size MB  each of V8's two semi-spaces, its young generation: 8 (default) keeps",
    '                 a server of many idle streams small; 0 lets Node.js size them (up to 64 MB on',
    '                 Node.js 24), a few percent less CPU per send (default: $TIDINGS_MAX_SEMI_SPACE_SIZE;',
    '                 a size given to Node.js itself, in NODE_OPTIONS or on its command line, wins)',
    "--smtp URL       send the dashboard's mail over SMTP (default: $TIDINGS_SMTP_URL; without it,",
    '                 each mail is printed on stderr as: [mail] to=… subject="…" code=…)',
    '--mail-from ADDR the sender of that mail (default: Tidings <no-reply@SMTP host>)',
    '--signup POLICY  who may create a dashboard account: open, invite (an operator invites) or',
    '                 closed (default: open)',
    '--no-dashboard   do not serve the web dashboard at /dashboard',
    '--vapid-subject mailto:ADDR|https://URL',
    '                 turn Web Push on, with this contact for the push services (default:',
    "                 $TIDINGS_VAPID_SUBJECT, else the config file's push.vapidSubject; off without one)",
    '--push-allow-hosts HOST,*.DOMAIN,…',
    '                 push services a subscription may use, replacing the list of the major',
    "                 browsers' (fcm.googleapis.com, updates.push.services.mozilla.com, *.push.apple.com, …)",
    '--push-allow-http, --push-allow-private',
    '                 development and tests only: accept http: push endpoints, and send to private',
    '                 and loopback addresses (a local push service)',
    '--webhooks-allow-http, --webhooks-allow-private',
    '                 development and tests only: accept and send to http: webhook endpoints, and',
    '                 send webhooks to private and loopback addresses (default: off; also',
    '                 $TIDINGS_WEBHOOKS_ALLOW_HTTP=1, $TIDINGS_WEBHOOKS_ALLOW_PRIVATE=1, or the config',
    "                 file's webhooks.allowHttp and webhooks.allowPrivateAddresses)",
    'Secrets at rest: $TIDINGS_SECRETS_KEY (keys separated by commas, the first seals) or',
    '                 $TIDINGS_SECRETS_KEY_FILE seal webhook secrets and the VAPID private key in the',
    '                 store; without a key they are stored unsealed, and the server says so at start',
    '                 (tidings secrets generate-key; docs/deploy.md#secrets-at-rest)',
  ],
};

const common = [
  'Every command takes:',
  '  --db DB     a SQLite file, or postgres://user@host/db?schema=NAME for PostgreSQL',
  '              (default: $TIDINGS_DB, else ./tidings.db; the schema defaults to tidings)',
  '  --json      print results, and errors as problem details, as JSON on stdout',
  'Every command that changes something (account, project, key, webhook and VAPID key changes, sign-in codes) takes:',
  '  --actor NAME  who runs it, recorded with the change in the audit log (`tidings audit`)',
  '              (default: the operating system user)',
];

/** The usage of one command, or of all when `command` is undefined or unknown. */
export function usage(command?: string): string {
  if (command === 'migrate') {
    return [`usage: tidings migrate`, '', migrateUsage.summary, '', ...migrateUsage.details, '', ...common].join('\n');
  }
  if (command === 'serve') {
    return [`usage: tidings serve ${serveUsage.synopsis}`, '', serveUsage.summary, '', ...serveUsage.details].join(
      '\n',
    );
  }
  const secrets = Object.entries(secretsUsage).filter(
    ([name]) => command !== undefined && (name === command || name.startsWith(`${command} `)),
  );
  if (secrets.length > 0) {
    return [
      ...secrets.map(([name, c]) => `usage: tidings ${name} ${c.synopsis}`.trimEnd()),
      '',
      ...secrets.flatMap(([name, c]) => [
        `  ${name.padEnd(22)} ${c.summary}`,
        ...c.details.map((line) => `      ${line}`),
      ]),
      '',
      ...common,
    ].join('\n');
  }
  const matching = adminCommands.filter(
    (c) => command !== undefined && (c.name === command || c.name.startsWith(`${command} `)),
  );
  if (matching.length > 0) {
    return [
      ...matching.map((c) => `usage: tidings ${c.name} ${c.synopsis}`.trimEnd()),
      '',
      ...matching.map((c) => `  ${c.name.padEnd(16)} ${c.summary}`),
      '',
      ...common,
    ].join('\n');
  }
  const rows = [
    ['serve', serveUsage.synopsis, serveUsage.summary],
    ['migrate', migrateUsage.synopsis, migrateUsage.summary],
    ...Object.entries(secretsUsage).map(([name, c]) => [name, c.synopsis, c.summary]),
    ...adminCommands.map((c) => [c.name, c.synopsis, c.summary]),
  ];
  return [
    'usage: tidings <command> [flags]',
    '',
    'Commands:',
    ...rows.map(([name, synopsis, summary]) => `  ${`${name} ${synopsis}`.trimEnd()}\n      ${summary}`),
    '  help [COMMAND]\n      Show this help, or a command’s',
    '',
    ...common,
  ].join('\n');
}
