import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cleanEnvironment, commandText, parseReadme, prepareCommand, ReadmeError } from './readme-commands.mjs';

/**
 * The README runner's reading of blocks and directives. The run itself (a clean clone, `npm ci`,
 * every command) is `npm run test:readme`, which CI runs; these pin how it reads the README, and
 * that the README as committed is readable, so that a broken directive fails here, fast.
 */
const readme = (text: string) => parseReadme(text.replaceAll('FENCE', '```'));

describe('parseReadme', () => {
  it('reads every shell block and no other, joining continued lines and leaving comments out', () => {
    const blocks = readme(
      [
        'FENCEsh',
        '# a comment',
        'npm ci   # installs',
        'curl -X POST http://x \\',
        '  -d "{}"',
        'FENCE',
        'FENCEts',
        'const a = 1;',
        'FENCE',
        'FENCEbash',
        'echo "# not a comment" # a comment',
        'FENCE',
      ].join('\n'),
    );
    expect(blocks.map((block) => block.commands.map((c) => [c.text, c.mode]))).toEqual([
      [
        ['npm ci', 'run'],
        ['curl -X POST http://x -d "{}"', 'run'],
      ],
      [['echo "# not a comment"', 'run']],
    ]);
  });

  it('applies a directive comment to the block right after it', () => {
    const [block] = readme(
      [
        '<!-- readme-test',
        'background: npm start  until /listening on/',
        'skip: npm test  — the suite',
        'fill: ACCOUNT_ID /acct_\\w+/',
        'before: curl -sf http://x/token',
        'expect: /"object":"notification"/',
        '-->',
        'FENCEsh',
        'npm start # serves',
        'npm test',
        'tidings account verify ACCOUNT_ID',
        'FENCE',
      ].join('\n'),
    );
    expect(block?.commands.map((c) => [c.mode, c.reason ?? c.until?.source ?? null])).toEqual([
      ['background', 'listening on'],
      ['skip', 'the suite'],
      ['run', null],
    ]);
    expect(block?.fills.map((fill) => [fill.placeholder, fill.pattern.source])).toEqual([['ACCOUNT_ID', 'acct_\\w+']]);
    expect(block?.before).toEqual(['curl -sf http://x/token']);
    expect(block?.expect.map(String)).toEqual(['/"object":"notification"/']);
  });

  it('skips a whole block with skip-block', () => {
    const [block] = readme(['<!-- readme-test skip-block: needs a GPU -->', 'FENCEsh', 'a', 'b', 'FENCE'].join('\n'));
    expect(block?.commands.map((c) => [c.mode, c.reason])).toEqual([
      ['skip', 'needs a GPU'],
      ['skip', 'needs a GPU'],
    ]);
  });

  it.each([
    [
      'a directive naming no command of its block',
      ['<!-- readme-test', 'skip: npm tset — typo', '-->', 'FENCEsh', 'npm test', 'FENCE'],
    ],
    ['a skip without a reason', ['<!-- readme-test', 'skip: npm test', '-->', 'FENCEsh', 'npm test', 'FENCE']],
    ['an unknown directive', ['<!-- readme-test', 'ignore: npm test', '-->', 'FENCEsh', 'npm test', 'FENCE']],
    [
      'a comment not followed by a shell block',
      ['<!-- readme-test', 'expect: /x/', '-->', 'text', 'FENCEsh', 'x', 'FENCE'],
    ],
    [
      'a background without until',
      ['<!-- readme-test', 'background: npm start', '-->', 'FENCEsh', 'npm start', 'FENCE'],
    ],
  ])('refuses %s', (_, lines) => {
    expect(() => readme(lines.join('\n'))).toThrow(ReadmeError);
  });
});

describe('prepareCommand', () => {
  const fills = [
    { kind: 'fill' as const, placeholder: 'ACCOUNT_ID', pattern: /acct_[0-9a-z]+/ },
    { kind: 'fill' as const, placeholder: '$KEY', pattern: /sk_live_[A-Za-z0-9]{4}/ },
  ];

  it('fills each placeholder with the latest match so far, and moves the port', () => {
    const transcript = 'created acct_one\nsk_live_AAAA\ncreated acct_two\n';
    expect(
      prepareCommand('curl http://127.0.0.1:8787/x -H "Bearer $KEY" # ACCOUNT_ID', { fills, transcript, port: 4100 }),
    ).toBe('curl http://127.0.0.1:4100/x -H "Bearer sk_live_AAAA" # acct_two');
  });

  it('fails when a placeholder has no match yet', () => {
    expect(() => prepareCommand('tidings account verify ACCOUNT_ID', { fills, transcript: '', port: 1 })).toThrow(
      ReadmeError,
    );
  });
});

describe('commandText', () => {
  it('drops a trailing comment, not a # inside quotes or a word', () => {
    expect(commandText(`npm ci && npm start     # builds`)).toBe('npm ci && npm start');
    expect(commandText(`curl 'http://x/#frag' a#b`)).toBe(`curl 'http://x/#frag' a#b`);
  });
});

describe('cleanEnvironment', () => {
  it('takes away what would make a command pass where a new user would fail', () => {
    const env = cleanEnvironment(
      {
        PATH: '/work/repo/node_modules/.bin:/usr/bin',
        TIDINGS_DB: 'x.db',
        npm_config_prefix: '/x',
        HOME: '/root',
      },
      4100,
    );
    expect(env).toEqual({ PATH: '/usr/bin', HOME: '/root', TIDINGS_PORT: '4100', npm_config_yes: 'false' });
  });
});

describe('the README', () => {
  it('reads as commands the runner can run, each skip with a reason and each placeholder filled', async () => {
    const blocks = parseReadme(await readFile(new URL('../../README.md', import.meta.url), 'utf8'));
    const commands = blocks.flatMap((block) => block.commands);
    expect(commands.some((c) => c.mode === 'background' && c.text === 'npm ci && npm start')).toBe(true);
    expect(commands.filter((c) => c.text.startsWith('npx tidings ')).length).toBeGreaterThan(5);
    // Every upper-case placeholder of a command that runs has a fill declared at or before its block.
    const declared = new Set<string>();
    for (const block of blocks) {
      for (const fill of block.fills) declared.add(fill.placeholder);
      for (const command of block.commands.filter((c) => c.mode !== 'skip')) {
        for (const word of command.text.match(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g) ?? []) {
          expect(declared, `${word} in README.md:${command.line}`).toContain(word);
        }
      }
    }
  });
});
