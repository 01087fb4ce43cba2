/** Types of readme-commands.mjs, which is plain JavaScript so that it runs before any install. */

export class ReadmeError extends Error {}

export interface ReadmeCommand {
  line: number;
  command: string;
  text: string;
  mode: 'run' | 'background' | 'skip';
  until?: RegExp;
  reason?: string;
}

export interface ReadmeFill {
  kind: 'fill';
  placeholder: string;
  pattern: RegExp;
}

export interface ReadmeBlock {
  line: number;
  commands: ReadmeCommand[];
  fills: ReadmeFill[];
  before: string[];
  expect: RegExp[];
}

export function commandText(command: string): string;
export function parseReadme(markdown: string, file?: string): ReadmeBlock[];
export function prepareCommand(
  command: string,
  context: { fills: ReadmeFill[]; transcript: string; port: number },
): string;
export function cleanEnvironment(env: NodeJS.ProcessEnv, port: number): Record<string, string | undefined>;
