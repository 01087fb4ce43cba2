import { afterEach, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/index.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
afterEach(() => h.close());

describe('GET /v1/openapi.json', () => {
  it('answers the document of the instance, with no key, to any origin', async () => {
    h = await createHarness({ extra: { maxConnectTokenTtlSeconds: 600 } });
    const response = await h.request('/v1/openapi.json', { headers: { Origin: 'https://elsewhere.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const served = await response.json();
    expect(served).toEqual(
      JSON.parse(
        JSON.stringify(buildOpenApiDocument({ serverUrl: 'http://tidings.test', maxConnectTokenTtlSeconds: 600 })),
      ),
    );
    expect(served.servers).toEqual([{ url: 'http://tidings.test' }]);
    expect(served.components.schemas.ConnectTokenCreate.properties.ttl_seconds.anyOf[0].maximum).toBe(600);
  });

  it('names the publicUrl as its server when one is set', async () => {
    h = await createHarness({ extra: { publicUrl: 'https://api.example.com/notify/' } });
    const served = await (await h.request('/v1/openapi.json')).json();
    expect(served.servers).toEqual([{ url: 'https://api.example.com/notify' }]);
  });

  it('is not rate-limited and never counts as a request without a key', async () => {
    h = await createHarness({ limits: { invalidKeyPerIp: 2 } });
    for (let i = 0; i < 5; i++) expect((await h.request('/v1/openapi.json')).status).toBe(200);
    // The IP has used none of its two invalid-key requests: the next two are 401, the third 429.
    expect((await h.request('/v1/notifications/ntf_x')).status).toBe(401);
    expect((await h.request('/v1/notifications/ntf_x')).status).toBe(401);
    expect((await h.request('/v1/notifications/ntf_x')).status).toBe(429);
  });
});
