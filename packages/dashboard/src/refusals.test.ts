import { TidingsError } from '@tidings/core';
import { describe, expect, it } from 'vitest';
import { refusalMessage } from './refusals.js';

describe('refusal messages', () => {
  it('say what happened and what to do, without the problem’s code', () => {
    const limit = new TidingsError('KEY_LIMIT_REACHED', 'A project holds at most 10 active keys; revoke one first');
    expect(refusalMessage(limit)).toBe(
      'A project holds at most 10 active keys; revoke one first. Revoke a key you no longer use, then create the new one.',
    );
    const invalid = new TidingsError('VALIDATION_FAILED', 'url must be an https: URL');
    expect(refusalMessage(invalid)).toBe(
      'Url must be an https: URL. Check the fields marked below, then submit again.',
    );
    const unverified = new TidingsError('EMAIL_NOT_VERIFIED', 'Verify the account email before creating a project');
    expect(refusalMessage(unverified)).toBe(
      'Verify your email address with the code sent to it, then create the project.',
    );
    for (const error of [limit, invalid, unverified]) expect(refusalMessage(error)).not.toContain(error.code);
  });

  it('end a message without a next step of their own as a sentence', () => {
    expect(refusalMessage(new TidingsError('NOT_FOUND', 'No project with id proj_1'))).toBe(
      'No project with id proj_1.',
    );
  });
});
