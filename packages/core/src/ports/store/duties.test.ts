import { describe, expect, it } from 'vitest';
import { STORE_DUTIES, storeMethodsWhere } from './duties.js';

describe('STORE_DUTIES', () => {
  it('gives a read or the lifecycle no duty of a write', () => {
    for (const [name, duties] of Object.entries(STORE_DUTIES)) {
      if (duties.kind === 'write') continue;
      expect(duties, name).toEqual({
        ...duties,
        durability: 'none',
        jobs: 'none',
        recordsWebhookEvents: false,
        countsUsage: false,
        publishes: [],
        jobKinds: [],
      });
    }
  });

  it('makes every write that records webhook events one that wakes the runner for their jobs', () => {
    const webhook = storeMethodsWhere((duties) => duties.jobs === 'webhook');
    for (const name of storeMethodsWhere((duties) => duties.recordsWebhookEvents)) expect(webhook).toContain(name);
  });

  it('gives every write a durability', () => {
    expect(storeMethodsWhere((duties) => duties.kind === 'write' && duties.durability === 'none')).toEqual([]);
  });
});
