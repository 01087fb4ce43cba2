import { describe, expect, it } from 'vitest';
import { counterText } from './client/length-counter.js';
import { keyBodySchema, parseForm, projectBodySchema, webhookEndpointBodySchema } from './forms.js';
import { MAX_NAME_LENGTH } from './limits.js';

describe('length limits', () => {
  it('counts characters against the limit, and says by how many a value is over', () => {
    expect(counterText(0, 100)).toBe('0 / 100');
    expect(counterText(100, 100)).toBe('100 / 100');
    expect(counterText(120, 100)).toBe('120 / 100: 20 too many');
  });

  it('refuses a name over the limit whole, saying how long it is and what to do', () => {
    const long = 'n'.repeat(MAX_NAME_LENGTH + 20);
    for (const schema of [projectBodySchema, keyBodySchema]) {
      const form = parseForm(schema, { name: long, mode: 'live' });
      expect(form.ok).toBe(false);
      if (form.ok) continue;
      expect(form.errors.name).toBe('This is 120 characters long: shorten it to 100 or fewer.');
      // The value comes back as typed, for the field to show it again, not cut.
      expect(form.values.name).toBe(long);
    }
    expect(parseForm(projectBodySchema, { name: 'n'.repeat(MAX_NAME_LENGTH) }).ok).toBe(true);
  });

  it('measures the trimmed value, as the one the server keeps', () => {
    const form = parseForm(projectBodySchema, { name: `  ${'n'.repeat(MAX_NAME_LENGTH)}  ` });
    expect(form.ok && form.data.name.length).toBe(MAX_NAME_LENGTH);
  });

  it('words the refusal of an endpoint’s description the same way', () => {
    const form = parseForm(webhookEndpointBodySchema, {
      url: 'https://example.com/hook',
      description: 'd'.repeat(201),
      events: ['*'],
    });
    expect(!form.ok && form.errors.description).toBe('This is 201 characters long: shorten it to 200 or fewer.');
  });
});
