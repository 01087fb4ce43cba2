import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createTidings, silentLogger, type Tidings } from '@tidings/core';
import { createSqliteStore } from '@tidings/store-sqlite';
import { conformingFetch } from '@tidings/test-support/openapi-conformance.js';
import { readEvents } from '@tidings/test-support/sse-client.js';
import { afterEach, describe, expect, it } from 'vitest';
import { TIDINGS, TidingsModule, type TidingsModuleOptions } from './index.js';

/** Nest apps with the real core (SQLite in memory) on the Express platform, over real HTTP. */
let app: INestApplication | undefined;
const instances: Tidings[] = [];

afterEach(async () => {
  await app?.close();
  app = undefined;
  for (const tidings of instances.splice(0)) await tidings.close();
});

function newTidings(): Tidings {
  const tidings = createTidings({
    store: createSqliteStore({ path: ':memory:' }),
    project: 'nest-app',
    logger: silentLogger,
    sweepIntervalMs: 0,
  });
  instances.push(tidings);
  return tidings;
}

/** An app whose root module imports `tidingsModule`; resolves with its base URL. */
async function start(tidingsModule: ReturnType<typeof TidingsModule.forRoot>): Promise<string> {
  class AppModule {}
  Module({ imports: [tidingsModule] })(AppModule);
  app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

describe('TidingsModule', () => {
  it('serves the stream under its base path, and provides the instance for sends in process', async () => {
    const base = await start(TidingsModule.forRoot({ tidings: newTidings(), basePath: '/notify/' }));
    const tidings = app!.get<Tidings>(TIDINGS);
    const { token } = await tidings.createConnectToken({ recipient: 'ada' });
    const page = new AbortController();
    const answer = await conformingFetch(`${base}/notify/v1/connect/${token}`, { signal: page.signal });
    expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const stream = readEvents(answer);
    await stream.next('ready');
    const { notification } = await tidings.notifications.send({ recipient: 'ada', title: 'Hello' });
    expect(JSON.parse((await stream.next('notification')).data)).toMatchObject({ notification_id: notification.id });
    // The page going away ends the stream on the server.
    page.abort();
    for (let tries = 0; tidings.openStreams() > 0 && tries < 250; tries++) await new Promise((r) => setTimeout(r, 20));
    expect(tidings.openStreams()).toBe(0);
  });

  it('takes a body Nest’s JSON parser read, passes other paths on, and answers a preflight', async () => {
    const tidings = newTidings();
    const base = await start(TidingsModule.forRoot({ tidings, basePath: '/notify' }));
    const project = await tidings.project();
    const { key } = await tidings.admin.createKey({ projectId: project.id, mode: 'live' });
    const token = await conformingFetch(`${base}/notify/v1/connect-tokens`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'ada' }),
    });
    expect(token.status).toBe(201);
    expect((await token.json()).connect_url).toMatch(new RegExp(`^${base}/notify/v1/connect/ct_`));
    const preflight = await fetch(`${base}/notify/v1/notifications`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://page.test', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    // Outside the base path, and a path under it that Tidings does not answer: Nest's own 404.
    for (const path of ['/v1/events', '/notify/elsewhere', '/notify/v1/mine']) {
      const answer = await fetch(`${base}${path}`);
      expect(answer.status).toBe(404);
      expect((await answer.json()).message).toMatch(/^Cannot GET/);
    }
  });

  it('makes its options with forRootAsync, from providers it injects', async () => {
    const tidings = newTidings();
    class ConfigModule {}
    Module({ providers: [{ provide: 'BASE', useValue: '/async' }], exports: ['BASE'] })(ConfigModule);
    const base = await start(
      TidingsModule.forRootAsync({
        imports: [ConfigModule],
        inject: ['BASE'],
        useFactory: async (basePath: string): Promise<TidingsModuleOptions> => ({ tidings, basePath }),
      }),
    );
    expect(app!.get(TIDINGS)).toBe(tidings);
    const { token } = await tidings.createConnectToken({ recipient: 'ada' });
    const answer = await fetch(`${base}/async/v1/connect/${token}`, { method: 'POST' });
    expect(answer.status).toBe(201);
  });

  it('closes Tidings as the app shuts down, before the server waits for the open streams', async () => {
    const tidings = newTidings();
    const base = await start(TidingsModule.forRoot({ tidings }));
    const { token } = await tidings.createConnectToken({ recipient: 'ada' });
    const stream = readEvents(await fetch(`${base}/v1/connect/${token}`));
    await stream.next('ready');
    await app!.close();
    app = undefined;
    expect(tidings.openStreams()).toBe(0);
    await stream.end();
  });

  it('leaves Tidings open with closeTidings: false, and refuses options without an instance', async () => {
    let closed = 0;
    const tidings = newTidings();
    const counted: Tidings = {
      ...tidings,
      close: async () => {
        closed++;
      },
    };
    await start(TidingsModule.forRoot({ tidings: counted, closeTidings: false }));
    await app!.close();
    app = undefined;
    expect(closed).toBe(0);
    expect(() => TidingsModule.forRoot({} as TidingsModuleOptions)).toThrow(
      'TidingsModule: `tidings` must be the instance createTidings() returned',
    );
  });
});
