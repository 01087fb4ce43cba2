import { describe, expect, it } from 'vitest';
import { memoryStorage } from '../test/memory-storage.js';
import { loadState, saveState, storageKey } from './stored-state.js';

const state = {
  browser: { browserId: 'brw_1', browserSecret: 'bs_1' },
  lastEventId: 'brw_1.4',
  seen: ['att_1', 'att_2'],
};

describe('stored state', () => {
  it('round-trips, keyed by server', () => {
    const storage = memoryStorage();
    saveState(storage, storageKey('https://a.example'), state);
    expect(loadState(storage, storageKey('https://a.example'))).toEqual(state);
    expect(loadState(storage, storageKey('https://b.example'))).toBeNull();
  });

  it('removes the entry when there is no browser any more', () => {
    const storage = memoryStorage();
    saveState(storage, 'k', state);
    saveState(storage, 'k', { ...state, browser: null });
    expect(storage.length).toBe(0);
  });

  it('reads malformed or partial entries as nothing, and repairs odd fields', () => {
    const storage = memoryStorage();
    for (const raw of [
      'not json',
      'null',
      '{"browser":{"browserId":"brw_1"}}',
      '{"browser":{"browserId":1,"browserSecret":"bs"}}',
    ]) {
      storage.setItem('k', raw);
      expect(loadState(storage, 'k')).toBeNull();
    }
    const browser = { browserId: 'b', browserSecret: 's' };
    storage.setItem('k', JSON.stringify({ browser: { ...browser, extra: 1 }, lastEventId: 7, seen: ['a', 3] }));
    expect(loadState(storage, 'k')).toEqual({ browser, lastEventId: '', seen: ['a'] });
  });

  it('survives a storage that throws, and no storage at all', () => {
    expect(loadState(memoryStorage(true), 'k')).toBeNull();
    expect(() => saveState(memoryStorage(true), 'k', state)).not.toThrow();
    expect(loadState(null, 'k')).toBeNull();
    expect(() => saveState(null, 'k', state)).not.toThrow();
  });
});
