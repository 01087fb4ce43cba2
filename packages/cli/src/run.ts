import { type AdminCommand, adminCommands } from './admin-commands.js';
import { withAdmin } from './admin-session.js';
import { databasePath, parseCommand, UsageError } from './args.js';
import { actorOf, actorOption, cliAuditContext } from './audit.js';
import { usage } from './help.js';
import { type CliIo, processIo, reportFailure, reportSuccess } from './io.js';
import { migrateCommand } from './migrate-command.js';
import { loadSecretKeys } from './secret-keys.js';
import { type SecretsCommandName, secretsCommand, secretsUsage } from './secrets-command.js';

const groups = new Set(adminCommands.map((command) => command.name.split(' ')[0]));

/** The admin command named by the first words of `argv`, if any. */
function findAdminCommand(words: string[]): AdminCommand | undefined {
  return (
    adminCommands.find((command) => command.name === words.slice(0, 2).join(' ')) ??
    adminCommands.find((command) => command.name === words[0])
  );
}

/** The words before the first flag: the command's name and, maybe, positionals. */
function leadingWords(argv: string[]): string[] {
  const end = argv.findIndex((arg) => arg.startsWith('-'));
  return end === -1 ? argv : argv.slice(0, end);
}

/**
 * Runs one `tidings` command line and resolves with its exit code: 0 done, 1 refused or failed,
 * 2 a command line that does not make sense (the usage goes to stderr). `serve` resolves when
 * the server has shut down.
 */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [first, ...rest] = argv;
  if (first === 'help' || first === '--help' || first === '-h') {
    io.stdout(usage(rest.length > 0 ? rest.join(' ') : undefined));
    return 0;
  }
  try {
    const words = leadingWords(argv);
    if (words[0] === undefined) throw new UsageError('a command is required');
    if (words[0] === 'serve') {
      // Loaded only to serve: the server and the dashboard would slow every short admin command.
      const { serveCommand } = await import('./serve-command.js');
      return await serveCommand(argv.slice(1), io);
    }
    if (words[0] === 'migrate') return await migrateCommand(argv.slice(1), io);
    if (words[0] === 'secrets') {
      const name = words.slice(0, 2).join(' ');
      if (words[1] === undefined) throw new UsageError('secrets needs a subcommand', 'secrets');
      if (!(name in secretsUsage)) throw new UsageError(`unknown command: ${name}`, 'secrets');
      return await secretsCommand(name as SecretsCommandName, argv.slice(2), io);
    }
    const command = findAdminCommand(words);
    if (!command) {
      const group = groups.has(words[0]) ? words[0] : undefined;
      if (group && words[1] === undefined) throw new UsageError(`${group} needs a subcommand`, group);
      throw new UsageError(`unknown command: ${words.slice(0, group ? 2 : 1).join(' ')}`, group);
    }
    const parsed = parseCommand(
      command.name,
      argv.slice(command.name.split(' ').length),
      command.changes ? { ...command.options, ...actorOption } : command.options,
    );
    if (parsed.values.help === true) {
      io.stdout(usage(command.name));
      return 0;
    }
    const json = parsed.values.json === true;
    const actor = command.changes ? actorOf(parsed, command.name) : '';
    try {
      return reportSuccess(
        io,
        await withAdmin(
          databasePath(parsed, io.env),
          (admin, store) => command.run(admin, parsed, store, cliAuditContext(store, actor, io.env)),
          // As `tidings serve --webhooks-allow-http` does, for the endpoints it will send to.
          {
            allowHttpWebhooks:
              parsed.values['webhooks-allow-http'] === true || io.env.TIDINGS_WEBHOOKS_ALLOW_HTTP === '1',
            secretKeys: (await loadSecretKeys(io.env)).keys,
          },
        ),
        json,
      );
    } catch (error) {
      if (error instanceof UsageError) throw error;
      return reportFailure(io, error, json);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`error: ${error.message}\n\n${usage(error.command)}`);
    return 2;
  }
}
