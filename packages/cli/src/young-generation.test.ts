import { describe, expect, it } from 'vitest';
import { chosenSemiSpaceMb, DEFAULT_SEMI_SPACE_MB, semiSpaceRelaunch } from './young-generation.js';

describe('the young generation of tidings serve', () => {
  it('starts serve again with the default, the flag in either form, or the environment', () => {
    expect(semiSpaceRelaunch(['serve'], [], {})).toEqual([`--max-semi-space-size=${DEFAULT_SEMI_SPACE_MB}`]);
    expect(semiSpaceRelaunch(['serve', '--max-semi-space-size', '16'], [], {})).toEqual(['--max-semi-space-size=16']);
    expect(semiSpaceRelaunch(['serve', '--max-semi-space-size=4'], ['--enable-source-maps'], {})).toEqual([
      '--max-semi-space-size=4',
      '--enable-source-maps',
    ]);
    expect(semiSpaceRelaunch(['serve'], [], { TIDINGS_MAX_SEMI_SPACE_SIZE: '2' })).toEqual(['--max-semi-space-size=2']);
    // The flag wins over the environment.
    expect(
      semiSpaceRelaunch(['serve', '--max-semi-space-size', '32'], [], { TIDINGS_MAX_SEMI_SPACE_SIZE: '2' }),
    ).toEqual(['--max-semi-space-size=32']);
  });

  it('goes on as it is for 0, for another command, and when Node.js was given a size already', () => {
    expect(semiSpaceRelaunch(['serve', '--max-semi-space-size', '0'], [], {})).toBeNull();
    expect(semiSpaceRelaunch(['account', 'list'], [], {})).toBeNull();
    expect(semiSpaceRelaunch(['serve'], ['--max-semi-space-size=8'], {})).toBeNull();
    expect(semiSpaceRelaunch(['serve'], [], { NODE_OPTIONS: '--trace-warnings --max-semi-space-size=64' })).toBeNull();
  });

  it('refuses what is not a whole number of MB from 0 to 1024, and does not start again for it', () => {
    for (const value of ['', 'eight', '-1', '1.5', '1025', '99999']) {
      expect(chosenSemiSpaceMb(['serve', '--max-semi-space-size', value], {}), value).toBeNull();
      expect(semiSpaceRelaunch(['serve', `--max-semi-space-size=${value}`], [], {}), value).toBeNull();
    }
    expect(chosenSemiSpaceMb(['serve', '--max-semi-space-size'], {})).toBeNull();
    expect(chosenSemiSpaceMb(['serve'], { TIDINGS_MAX_SEMI_SPACE_SIZE: 'big' })).toBeNull();
    expect(chosenSemiSpaceMb(['serve', '--max-semi-space-size', '1024'], {})).toBe(1024);
  });
});
