import { describe, expect, it } from 'vitest';
import { Input, Phase, transition } from './connection-machine.js';

const phases = {
  Trying: Phase.Trying,
  Waiting: Phase.Waiting,
  Holding: Phase.Holding,
  Following: Phase.Following,
  Hidden: Phase.Hidden,
  HiddenFollowing: Phase.HiddenFollowing,
  Closed: Phase.Closed,
} as const;
const inputs = {
  Wait: Input.Wait,
  Hold: Input.Hold,
  Elapse: Input.Elapse,
  Wake: Input.Wake,
  Hide: Input.Hide,
  Show: Input.Show,
  Lead: Input.Lead,
  Follow: Input.Follow,
  Close: Input.Close,
} as const;
type PhaseName = keyof typeof phases;
type InputName = keyof typeof inputs;

/**
 * Every change of state, by name; a pair not listed keeps its state. Written as rules of the
 * connection, apart from the table the SDK ships.
 */
const changes: Partial<Record<InputName, Partial<Record<PhaseName, PhaseName>>>> = {
  // A try ends in a wait the loop may cut short, or in the server's Retry-After.
  Wait: { Trying: 'Waiting' },
  Hold: { Trying: 'Holding', Waiting: 'Holding' },
  // Either wait runs out; only the first ends early on a wake.
  Elapse: { Waiting: 'Trying', Holding: 'Trying' },
  Wake: { Waiting: 'Trying' },
  // The back/forward cache stops everything and remembers whether this tab led.
  Hide: { Trying: 'Hidden', Waiting: 'Hidden', Holding: 'Hidden', Following: 'HiddenFollowing' },
  Show: { Hidden: 'Trying', HiddenFollowing: 'Following' },
  // The election moves a tab between holding the connection and following the one that does.
  Lead: { Following: 'Trying', HiddenFollowing: 'Hidden' },
  Follow: { Trying: 'Following', Waiting: 'Following', Holding: 'Following', Hidden: 'HiddenFollowing' },
  Close: {
    Trying: 'Closed',
    Waiting: 'Closed',
    Holding: 'Closed',
    Following: 'Closed',
    Hidden: 'Closed',
    HiddenFollowing: 'Closed',
  },
};

const nameOf = (phase: Phase) => (Object.keys(phases) as PhaseName[]).find((name) => phases[name] === phase);

describe('the connection machine', () => {
  for (const [inputName, input] of Object.entries(inputs) as [InputName, Input][]) {
    for (const [phaseName, phase] of Object.entries(phases) as [PhaseName, Phase][]) {
      const expected = changes[inputName]?.[phaseName] ?? phaseName;
      it(`${phaseName} --${inputName}--> ${expected}`, () => {
        expect(nameOf(transition(phase, input))).toBe(expected);
      });
    }
  }

  it('walks a backoff, a hold that a wake does not cut, and the back/forward cache as a follower', () => {
    const walk = (from: Phase, ...steps: Input[]) => steps.reduce(transition, from);
    expect(nameOf(walk(Phase.Trying, Input.Wait, Input.Wake))).toBe('Trying');
    expect(nameOf(walk(Phase.Trying, Input.Hold, Input.Wait, Input.Wake))).toBe('Holding');
    expect(nameOf(walk(Phase.Trying, Input.Hold, Input.Wait, Input.Elapse))).toBe('Trying');
    // Hidden as a follower, elected meanwhile: it comes back as the leader and tries.
    expect(nameOf(walk(Phase.Following, Input.Hide, Input.Lead, Input.Show))).toBe('Trying');
    expect(nameOf(walk(Phase.Trying, Input.Hide, Input.Follow, Input.Show))).toBe('Following');
  });
});
