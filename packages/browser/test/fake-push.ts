import 'fake-indexeddb/auto';
import { createECDH } from 'node:crypto';
import type { TidingsHost } from '../src/options.js';

/** A VAPID public key as a server would answer it: a real P-256 point, base64url. */
export const newVapidKey = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return ecdh.getPublicKey().toString('base64url');
};

/** A browser's service worker container, Push API and Notification API, in memory. */
export function fakePlatform(
  options: {
    permission?: NotificationPermission;
    answer?: NotificationPermission;
    /** The subscription's keys as `toJSON()` gives them. @default placeholders no server would accept */
    keys?: { p256dh: string; auth: string };
  } = {},
) {
  const calls: string[] = [];
  let subscription: FakeSubscription | null = null;
  let subscriptions = 0;
  class FakeSubscription {
    readonly options: { applicationServerKey: ArrayBuffer; userVisibleOnly: boolean };
    readonly endpoint = `https://push.example.net/send/${++subscriptions}`;
    constructor(key: Uint8Array, userVisibleOnly: boolean) {
      this.options = { applicationServerKey: Uint8Array.from(key).buffer, userVisibleOnly };
    }
    toJSON() {
      return {
        endpoint: this.endpoint,
        expirationTime: null,
        keys: options.keys ?? { p256dh: 'BPublicKey', auth: 'authSecret' },
      };
    }
    async unsubscribe() {
      calls.push(`unsubscribe ${this.endpoint}`);
      if (subscription === this) subscription = null;
      return true;
    }
  }
  const registration = {
    active: {},
    installing: null,
    waiting: null,
    pushManager: {
      getSubscription: async () => subscription,
      subscribe: async (subscribeOptions: { userVisibleOnly: boolean; applicationServerKey: Uint8Array }) => {
        subscription = new FakeSubscription(subscribeOptions.applicationServerKey, subscribeOptions.userVisibleOnly);
        calls.push(`subscribe ${subscription.endpoint}`);
        return subscription;
      },
    },
  };
  const NotificationApi = {
    permission: options.permission ?? 'default',
    requestPermission: async () => {
      calls.push('requestPermission');
      NotificationApi.permission = options.answer ?? 'granted';
      return NotificationApi.permission;
    },
  };
  const indexedDB = new IDBFactory();
  const host: TidingsHost = {
    addEventListener: () => {},
    removeEventListener: () => {},
    navigator: {
      serviceWorker: {
        register: async (url: string, registerOptions?: { scope?: string }) => {
          calls.push(`register ${url}${registerOptions?.scope ? ` ${registerOptions.scope}` : ''}`);
          return registration;
        },
        getRegistration: async (url?: string) => {
          calls.push(`getRegistration ${url}`);
          return registration;
        },
      } as unknown as ServiceWorkerContainer,
    },
    PushManager: class {},
    Notification: NotificationApi as unknown as typeof Notification,
    indexedDB,
  };
  return {
    host,
    calls,
    indexedDB,
    subscription: () => subscription,
    /** A subscription made earlier with another key (before a key rotation). */
    subscribeEarlier: (key: string) => {
      subscription = new FakeSubscription(Buffer.from(key, 'base64url'), true);
    },
  };
}
