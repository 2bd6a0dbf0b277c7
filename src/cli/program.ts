// The whole command tree, declared eagerly (flags, help, examples) so `--help` and the
// completion generator see everything, while each command's module is loaded with
// `await import()` only when it runs. Each import path is a string literal, so esbuild
// puts every command in its own chunk.
import { Argument, Command, Option } from 'commander';
import type { Mode } from '../shared/constants.js';

/** What every leaf module exports (src/commands/<group>/<verb>.ts). */
export interface CommandModule {
  parse(args: string[], flags: Record<string, unknown>): unknown;
  run(opts: never, ctx: never): Promise<number | void>;
  /** A command that runs until Ctrl-C (a server): being stopped so is its success, not exit 130. */
  stopsOnInterrupt?: boolean;
}

export type Loader = () => Promise<unknown>;

export interface Invocation {
  /** `calls list`, `mode`, … */
  name: string;
  load: Loader;
  /** Positional arguments, variadic ones flattened. */
  args: string[];
  /** The command's own flags (camelCase, as commander gives them). */
  flags: Record<string, unknown>;
  /** The root's global flags. */
  globals: RawGlobals;
}

export interface RawGlobals {
  profile?: string;
  test?: boolean;
  live?: boolean;
  json?: boolean;
  baseUrl?: string;
  debug?: boolean;
  color?: boolean;
  yes?: boolean;
}

export interface ProgramOptions {
  version: string;
  /** Runs a leaf command (src/cli/run.ts): load, parse, run. */
  invoke(invocation: Invocation): Promise<void>;
  writeOut(text: string): void;
  writeErr(text: string): void;
  /** Where commander's error messages go (default: writeErr). */
  outputError?(text: string): void;
  /** Help text colour and width. */
  color?: boolean;
  columns?: number;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`;
}

/** The globals, on the root (commander also recognises them after subcommands). */
function addGlobalOptions(cmd: Command): Command {
  return cmd
    .option('--profile <name>', 'profile to use (env SVC_PROFILE; default: the default profile)')
    .addOption(new Option('--test', 'use test mode (the test key; free of charge)').conflicts('live'))
    .addOption(new Option('--live', 'use live mode (OAuth sign-in, else the live key; billed)').conflicts('test'))
    .option('--json', 'print the API\'s JSON (NDJSON for streams)')
    .option('--base-url <url>', 'service address (env SVC_BASE_URL; default http://127.0.0.1:4010)')
    .option('--debug', 'print each request and response on stderr, credentials redacted')
    .option('--no-color', 'no colour (also env NO_COLOR)')
    .option('-y, --yes', 'skip the confirmation a billable live action asks on a terminal (without a terminal nothing is asked)');
}

export function globalMode(globals: RawGlobals): Mode | undefined {
  return globals.test ? 'test' : globals.live ? 'live' : undefined;
}

export function buildProgram(options: ProgramOptions): Command {
  const program = new Command('svc');
  program
    .description('Calls, chats and interpretation for your organization, from the command line.')
    .version(options.version, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: options.writeOut,
      writeErr: options.writeErr,
      getOutHelpWidth: () => options.columns ?? 80,
      getErrHelpWidth: () => options.columns ?? 80,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      ...(options.outputError ? { outputError: options.outputError } : {}),
    })
    // Every command's help lists the global flags too: `svc login --help` shows --profile.
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError(true)
    .addHelpCommand(false);
  addGlobalOptions(program);
  program.addHelpText(
    'after',
    examples('svc login', 'svc keys add --name ci < key.txt', 'svc calls start --languages en,es', 'svc --test translate "hello" --to es', 'svc events tail --json') +
      '\nEnvironment: SVC_API_KEY, SVC_PROFILE, SVC_MODE, SVC_BASE_URL, SVC_CONFIG_DIR, SVC_CREDENTIAL_STORE, SVC_CLIENT_ID/SVC_CLIENT_SECRET (svc login with your own OAuth app), NO_COLOR, HTTPS_PROXY/HTTP_PROXY/NO_PROXY, SVC_HTTP_TIMEOUT (seconds a request may take; default 60)\n',
  );

  /** Declares the action of a leaf: collect args/flags, hand over to `invoke`. */
  const leaf = (cmd: Command, name: string, load: Loader): Command =>
    cmd.action(async (...received: unknown[]) => {
      const self = received[received.length - 1] as Command;
      const args = (self.processedArgs as unknown[]).flat().filter((a): a is string => typeof a === 'string');
      const all = self.optsWithGlobals() as RawGlobals;
      await options.invoke({ name, load, args, flags: self.opts(), globals: all });
    });

  // login / logout
  leaf(
    program
      .command('login')
      .description('sign in with your browser (OAuth) and store the connection for the profile')
      .option('--scopes <list>', 'comma-separated scopes to ask for (default: all)')
      .option('--no-browser', 'print the sign-in address instead of opening a browser')
      .option('--port <n>', 'loopback port for the redirect (default: random)')
      .option('--timeout <duration>', 'how long to wait for the sign-in', '5m')
      .option('--client-id <id>', 'OAuth app client id (default: the svc app)')
      .addHelpText('after', examples('svc login', 'svc login --profile work --scopes calls:read,calls:write', 'svc login --no-browser') +
          '\nAn organization\'s own app: --client-id (or SVC_CLIENT_ID); a confidential app also sets SVC_CLIENT_SECRET.\n'),
    'login',
    () => import('../commands/login.js'),
  );
  leaf(
    program
      .command('logout')
      .description('revoke and forget the profile\'s OAuth sign-in')
      .option('--all', 'log out of every profile')
      .addHelpText('after', examples('svc logout', 'svc logout --profile work', 'svc logout --all')),
    'logout',
    () => import('../commands/logout.js'),
  );

  // auth
  const auth = program.command('auth').description('show and manage the stored credentials');
  auth.addHelpText('after', examples('svc auth status', 'svc auth switch work'));
  leaf(
    auth
      .command('status')
      .description('every profile (or --profile NAME alone) with its organization, mode, credentials, scopes, where secrets are stored, and whether the service accepts each')
      .option('--offline', 'do not ask the service whether each credential still works')
      .addHelpText('after', examples('svc auth status', 'svc auth status --profile work', 'svc auth status --offline --json')),
    'auth status',
    () => import('../commands/auth/status.js'),
  );
  leaf(
    auth
      .command('token')
      .description('print a valid access token for the profile (refreshing it if needed)')
      .addHelpText('after', examples('svc auth token', 'curl -H @- https://… <<< "Authorization: Bearer $(svc auth token)"')),
    'auth token',
    () => import('../commands/auth/token.js'),
  );
  leaf(
    auth
      .command('switch')
      .description('make PROFILE the default profile')
      .argument('<profile>', 'profile name')
      .addHelpText('after', examples('svc auth switch work')),
    'auth switch',
    () => import('../commands/auth/switch.js'),
  );

  // keys
  const keys = program.command('keys').description('API keys stored for the profile');
  keys.addHelpText('after', examples('svc keys add', 'svc keys list', 'svc keys remove ci'));
  leaf(
    keys
      .command('add')
      .description('store an API key (svc_test_… or svc_live_…) for the profile, after checking it with the service')
      .option('--name <name>', 'a name for the key (default: its mode, test or live)')
      .option('--stdin', 'read the key from stdin (the default without a terminal)')
      .option('--org <id>', 'the key\'s organization (org_…), for a key without account:read (stored unverified)')
      .addHelpText('after', examples('svc keys add', 'svc keys add --name ci --stdin < key.txt', 'svc keys add --profile work --stdin < key.txt')),
    'keys add',
    () => import('../commands/keys/add.js'),
  );
  leaf(
    keys
      .command('list')
      .description('the profile\'s keys: name, mode, redacted key, scopes, where stored')
      .addHelpText('after', examples('svc keys list', 'svc keys list --json')),
    'keys list',
    () => import('../commands/keys/list.js'),
  );
  leaf(
    keys
      .command('remove')
      .description('forget a stored key (the key itself stays valid at the service)')
      .argument('<name>', 'the key\'s name (see svc keys list)')
      .addHelpText('after', examples('svc keys remove ci')),
    'keys remove',
    () => import('../commands/keys/remove.js'),
  );

  // mode
  leaf(
    program
      .command('mode')
      .description('show or set the profile\'s default mode')
      .addArgument(new Argument('[mode]', 'test or live').choices(['test', 'live']))
      .addHelpText('after', examples('svc mode', 'svc mode live')),
    'mode',
    () => import('../commands/mode/mode.js'),
  );

  // account
  const account = program
    .command('account')
    .description('the organization, mode, credential, scopes and balance')
    .addHelpText('after', examples('svc account', 'svc account balance', 'svc account prices --json'));
  leaf(account, 'account', () => import('../commands/account/show.js'));
  leaf(
    account.command('balance').description('the prepaid balance').addHelpText('after', examples('svc account balance', 'svc --live account balance --json')),
    'account balance',
    () => import('../commands/account/balance.js'),
  );
  leaf(
    account.command('prices').description('prices of billable operations').addHelpText('after', examples('svc account prices')),
    'account prices',
    () => import('../commands/account/prices.js'),
  );

  // calls
  const calls = program.command('calls').description('interpreted calls, links and phone lines');
  calls.addHelpText('after', examples('svc calls list --status active', 'svc calls start --languages en,es', 'svc calls links create --call call_123'));
  leaf(
    calls
      .command('list')
      .description('list calls, newest first')
      .addOption(new Option('--status <status>', 'only active or ended calls').choices(['active', 'ended']))
      .option('--limit <n>', 'at most N calls (1–100, default 20)')
      .option('--all', 'every call, following pages')
      .addHelpText('after', examples('svc calls list', 'svc calls list --status active --json', 'svc calls list --all | cut -f1')),
    'calls list',
    () => import('../commands/calls/list.js'),
  );
  leaf(
    calls.command('get').description('show one call').argument('<id>', 'call id (call_…)').addHelpText('after', examples('svc calls get call_123')),
    'calls get',
    () => import('../commands/calls/get.js'),
  );
  leaf(
    calls
      .command('start')
      .description('start an interpreted call between two languages')
      .requiredOption('--languages <a,b>', 'the two BCP 47 languages, e.g. en,es')
      .option('--title <title>', 'a title')
      .option('--dry-run', 'print the request and the price it would draw; send nothing')
      .addHelpText('after', examples('svc calls start --languages en,es', 'svc calls start --languages en,ja --title "Support"')),
    'calls start',
    () => import('../commands/calls/start.js'),
  );
  leaf(
    calls.command('end').description('end a call').argument('<id>', 'call id').addHelpText('after', examples('svc calls end call_123')),
    'calls end',
    () => import('../commands/calls/end.js'),
  );
  leaf(
    calls
      .command('dial')
      .description('dial a phone into a call (live mode only; billed)')
      .argument('<id>', 'call id')
      .requiredOption('--to <+E164>', 'the phone number, e.g. +14155550100')
      .option('--line <id>', 'the line to call from (line_…)')
      .option('--language <lang>', 'the language the callee speaks')
      .option('--dry-run', 'print the request and the price it would draw; send nothing')
      .addHelpText('after', examples('svc --live calls dial call_123 --to +14155550100 --language es')),
    'calls dial',
    () => import('../commands/calls/dial.js'),
  );
  const links = calls.command('links').description('join links for calls');
  links.addHelpText('after', examples('svc calls links list', 'svc calls links create --call call_123'));
  leaf(
    links.command('list').description('list links').option('--limit <n>', 'at most N links').option('--all', 'every link').addHelpText('after', examples('svc calls links list')),
    'calls links list',
    () => import('../commands/calls/links-list.js'),
  );
  leaf(
    links
      .command('create')
      .description('create a join link')
      .option('--call <id>', 'the call it joins (call_…)')
      .option('--language <lang>', 'the joiner\'s language')
      .option('--expires-in <duration>', 'lifetime, e.g. 1h or 30m')
      .addHelpText('after', examples('svc calls links create --call call_123 --language fr --expires-in 1h')),
    'calls links create',
    () => import('../commands/calls/links-create.js'),
  );
  const lines = calls.command('lines').description('phone lines');
  lines.addHelpText('after', examples('svc calls lines list', 'svc calls lines add --country US --area-code 415'));
  leaf(
    lines.command('list').description('list phone lines').option('--limit <n>', 'at most N lines').option('--all', 'every line').addHelpText('after', examples('svc calls lines list')),
    'calls lines list',
    () => import('../commands/calls/lines-list.js'),
  );
  leaf(
    lines
      .command('add')
      .description('rent a phone line (billed in live mode)')
      .requiredOption('--country <cc>', 'ISO country code, e.g. US')
      .option('--area-code <code>', 'area code, e.g. 415')
      .option('--dry-run', 'print the request and the price it would draw; send nothing')
      .addHelpText('after', examples('svc calls lines add --country US --area-code 415')),
    'calls lines add',
    () => import('../commands/calls/lines-add.js'),
  );
  leaf(
    lines.command('release').description('release a phone line').argument('<id>', 'line id (line_…)').addHelpText('after', examples('svc calls lines release line_123')),
    'calls lines release',
    () => import('../commands/calls/lines-release.js'),
  );

  // chats
  const chats = program.command('chats').description('support chats with translation');
  chats.addHelpText('after', examples('svc chats start --language en', 'svc chats send chat_123 "hello"', 'svc chats stream chat_123'));
  leaf(
    chats
      .command('list')
      .description('list chats, newest first')
      .addOption(new Option('--status <status>', 'only open or closed chats').choices(['open', 'closed']))
      .option('--limit <n>', 'at most N chats (1–100, default 20)')
      .option('--all', 'every chat, following pages')
      .addHelpText('after', examples('svc chats list --status open')),
    'chats list',
    () => import('../commands/chats/list.js'),
  );
  leaf(
    chats.command('get').description('show one chat').argument('<id>', 'chat id (chat_…)').addHelpText('after', examples('svc chats get chat_123')),
    'chats get',
    () => import('../commands/chats/get.js'),
  );
  leaf(
    chats
      .command('start')
      .description('start a support chat')
      .requiredOption('--language <lang>', 'the chat\'s language (BCP 47)')
      .option('--subject <subject>', 'a subject')
      .addHelpText('after', examples('svc chats start --language en --subject "Billing"')),
    'chats start',
    () => import('../commands/chats/start.js'),
  );
  leaf(
    chats.command('close').description('close a chat').argument('<id>', 'chat id').addHelpText('after', examples('svc chats close chat_123')),
    'chats close',
    () => import('../commands/chats/close.js'),
  );
  leaf(
    chats
      .command('messages')
      .description('list a chat\'s messages')
      .argument('<id>', 'chat id')
      .option('--limit <n>', 'at most N messages')
      .option('--all', 'every message')
      .addHelpText('after', examples('svc chats messages chat_123 --all')),
    'chats messages',
    () => import('../commands/chats/messages.js'),
  );
  leaf(
    chats
      .command('send')
      .description('post a text message (TEXT, or stdin when omitted)')
      .argument('<id>', 'chat id')
      .argument('[text...]', 'the message (several words are joined with spaces)')
      .option('--dry-run', 'print the request and the price it would draw; send nothing')
      .addHelpText('after', examples('svc chats send chat_123 "Where is my order?"', 'echo hello | svc chats send chat_123')),
    'chats send',
    () => import('../commands/chats/send.js'),
  );
  leaf(
    chats
      .command('voice')
      .description('post a voice message from an audio file (≤ 10 MiB)')
      .argument('<id>', 'chat id')
      .argument('<file>', 'audio file (Ogg/Opus, MP3, AAC, WAV, FLAC, M4A, WebM, AMR: told by its content), or - for stdin')
      .addHelpText('after', examples('svc chats voice chat_123 question.ogg', 'record | svc chats voice chat_123 -')),
    'chats voice',
    () => import('../commands/chats/voice.js'),
  );
  leaf(
    chats
      .command('stream')
      .description('follow a chat\'s new messages live')
      .argument('<id>', 'chat id')
      .option('--fail-on-gap', 'exit 1 when the service cannot resume without missing messages')
      .addHelpText('after', examples('svc chats stream chat_123', 'svc chats stream chat_123 --json')),
    'chats stream',
    () => import('../commands/chats/stream.js'),
  );

  // translate
  leaf(
    program
      .command('translate')
      .description('translate text (arguments, or stdin)')
      .argument('[text...]', 'the text')
      .requiredOption('--to <lang>', 'target language (BCP 47)')
      .option('--from <lang>', 'source language (default: detected)')
      .option('--lines', 'translate stdin line by line')
      .option('--dry-run', 'print the request and the price it would draw; send nothing')
      .addHelpText('after', examples('svc translate "good morning" --to es', 'svc translate --to fr --lines < input.txt')),
    'translate',
    () => import('../commands/translate.js'),
  );

  // events
  const events = program.command('events').description('the organization\'s live event stream');
  events.addHelpText('after', examples('svc events tail', 'svc events tail --type call. --json'));
  leaf(
    events
      .command('tail')
      .description('follow events live, resuming after drops')
      .option('--type <type>', 'only this type or prefix (repeatable), e.g. call. or chat.closed', collect)
      .option('--since <evt_id>', 'start after this event')
      .option('--max-events <n>', 'stop after N events')
      .option('--forward-to <url>', 'POST each event, signed, to URL; TYPE=URL for some types only, e.g. call.*=URL (repeatable)', collect)
      .option('--forward-header <header>', "add 'Name: value' to each delivery (repeatable)", collect)
      .option('--dead-letter <file>', 'append deliveries given up on to FILE (NDJSON)')
      .option('--record <file>', 'append every event received to FILE (NDJSON)')
      .option('--checkpoint <file>', 'keep the last handled event id in FILE and resume after it')
      .option('--print-secret', 'print the forwarding secret (for your handler) and exit')
      .option('--fail-on-gap', 'exit 1 when the service cannot resume without missing events')
      .option('--timeout <duration>', 'give up after this long without a connection')
      .addHelpText('after', examples('svc events tail --type call. --type chat.closed', 'svc events tail --json --max-events 100', 'svc events tail --forward-to http://localhost:3000/hooks --dead-letter dead.ndjson', "svc events tail --forward-to 'call.*=http://localhost:3000/calls' --checkpoint tail.ckpt", 'export SVC_FORWARD_SECRET=$(svc events tail --print-secret)')),
    'events tail',
    () => import('../commands/events/tail.js'),
  );
  leaf(
    events
      .command('list')
      .description('the retained events, newest first')
      .option('--type <type>', 'only this type or family (repeatable), e.g. call.*', collect)
      .option('--limit <n>', 'at most N events (1–100, default 20)')
      .option('--all', 'every retained event, following pages')
      .addHelpText('after', examples('svc events list', 'svc events list --type chat.* --limit 50', 'svc events list --all --json')),
    'events list',
    () => import('../commands/events/list.js'),
  );
  leaf(
    events.command('get').description('show one retained event').argument('<id>', 'event id (evt_…)').addHelpText('after', examples('svc events get evt_123', 'svc events get evt_123 --json')),
    'events get',
    () => import('../commands/events/get.js'),
  );
  leaf(
    events
      .command('trigger')
      .description('cause an event of TYPE with real API requests (test mode only)')
      .argument('[type]', 'event type, e.g. call.ended')
      .option('--override <path=value>', 'change a request field, e.g. call.title=Support (repeatable)', collect)
      .option('--fixture <file>', 'run the steps of your own fixture file')
      .addHelpText('after', examples('svc --test events trigger call.ended', 'svc events trigger chat.message.created --override message.text="Où est ma commande ?"', 'svc events trigger --fixture my-steps.json --json')),
    'events trigger',
    () => import('../commands/events/trigger.js'),
  );
  leaf(
    events
      .command('replay')
      .description('send recorded (or dead-letter) events again, signed, in order')
      .argument('<file>', 'NDJSON from events tail --record or --dead-letter')
      .option('--forward-to <url>', 'POST each event, signed, to URL; TYPE=URL for some types only (repeatable); else print them', collect)
      .option('--forward-header <header>', "add 'Name: value' to each delivery (repeatable)", collect)
      .option('--dead-letter <file>', 'append deliveries given up on to FILE (NDJSON)')
      .option('--type <type>', 'only this type or family (repeatable)', collect)
      .option('--speed <n>', 'replay N times faster than recorded (default 1)')
      .option('--no-wait', 'send at once, without the recorded pauses')
      .addHelpText('after', examples('svc events replay events.ndjson --forward-to http://localhost:3000/hooks --no-wait', 'svc events replay dead.ndjson --forward-to http://localhost:3000/hooks', 'svc events replay events.ndjson --speed 10 --type call.*')),
    'events replay',
    () => import('../commands/events/replay.js'),
  );

  // api
  leaf(
    program
      .command('api')
      .description('any request, authenticated like every other command (the escape hatch, like gh api)')
      .argument('<method-or-path>', 'GET, POST, PUT, DELETE, PATCH; or the path, as in gh api PATH')
      .argument('[path]', 'e.g. /v1/calls (the leading / may be left out)')
      .option('-X, --method <method>', 'the method with `svc api PATH` (default GET, or POST with fields)')
      .option('-f, --raw-field <key=value>', 'a string field (query parameter for GET/DELETE); repeatable', collect)
      .option('-F, --field <key=value>', 'a typed field: true, false, null and numbers as JSON, @file a file\'s contents, @- stdin; key[]=v arrays, key[sub]=v objects; repeatable', collect)
      .option('-H, --header <name:value>', 'an extra request header (not Authorization: svc sends the credential); repeatable', collect)
      .option('--input <file>', 'the request body from a file, or - for stdin')
      .option('--paginate', 'follow next_cursor to the last page (with --json: one array of every item)')
      .option('--jq <expr>', 'filter the JSON answer with jq, e.g. --jq \'.data[].id\'')
      .option('-i, --include', 'print the status line and headers too')
      .addHelpText('after', examples('svc api GET /v1/account', 'svc api POST /v1/chats -f language=en -f subject=123', 'svc api v1/calls -F languages[]=en -F languages[]=es', 'svc api GET /v1/calls --paginate --json --jq \'.[].id\'', 'svc api GET /v1/events/stream -H \'Last-Event-ID: evt_123\'', 'svc api POST /v1/translate --input body.json')),
    'api',
    () => import('../commands/api/request.js'),
  );

  // completion
  leaf(
    program
      .command('completion')
      .description('print the shell completion script')
      .addArgument(new Argument('<shell>', 'bash, zsh, fish or powershell').choices(['bash', 'zsh', 'fish', 'powershell']))
      .addHelpText('after', examples('svc completion bash > ~/.local/share/bash-completion/completions/svc', 'svc completion zsh > "${fpath[1]}/_svc"', 'svc completion fish > ~/.config/fish/completions/svc.fish', 'svc completion powershell >> $PROFILE')),
    'completion',
    () => import('../commands/completion/print.js'),
  );
  // Hidden: what the completion scripts call for `--profile <TAB>` (reads config.json only).
  leaf(
    program.command('__complete', { hidden: true }).argument('<what>', 'profiles'),
    '__complete',
    () => import('../commands/completion/complete.js'),
  );

  // profiles
  const profiles = program.command('profiles').description('the profiles on this machine: list them, remove one');
  profiles.addHelpText('after', examples('svc profiles list', 'svc profiles remove old --revoke'));
  leaf(
    profiles
      .command('list')
      .description('every profile: organization, address, mode, credentials (the default marked *)')
      .addHelpText('after', examples('svc profiles list', 'svc profiles list --json')),
    'profiles list',
    () => import('../commands/profiles/list.js'),
  );
  leaf(
    profiles
      .command('remove')
      .description('delete a profile: its local secrets and its config')
      .argument('<name>', 'the profile (see svc profiles list)')
      .option('--revoke', 'first revoke its OAuth connection at the service')
      .addHelpText('after', examples('svc profiles remove old', 'svc profiles remove work --revoke')),
    'profiles remove',
    () => import('../commands/profiles/remove.js'),
  );

  // doctor
  leaf(
    program
      .command('doctor')
      .description('check the setup and explain each problem: config, profile, address, network, keychain, credentials, clock, Node')
      .addHelpText('after', examples('svc doctor', 'svc doctor --profile work', 'svc doctor --json')),
    'doctor',
    () => import('../commands/doctor/doctor.js'),
  );

  // version / help
  leaf(
    program.command('version').description('print the version (with --json: also Node.js and the platform)').addHelpText('after', examples('svc version', 'svc version --json')),
    'version',
    () => import('../commands/version.js'),
  );
  // Never runs: execute() turns `svc help A B` into `svc A B --help`. Declared for the command list and completions.
  program.command('help').description('help for a command, e.g. svc help calls list').argument('[command...]', 'the command');

  // emulator
  leaf(
    program
      .command('emulator')
      .description('run the local emulator of the service')
      .option('--port <n>', 'port to listen on', '4010')
      .option('--host <host>', 'address to listen on', '127.0.0.1')
      .option('--state <file>', 'keep the whole state in this file across restarts (created from the seed if missing)')
      .option('--import <file>', 'start from this exported document instead of the seed')
      .option('--export <file>', 'write the --state file as a readable document to this file, then exit')
      .option('--allow-host <name>', 'also answer requests for this Host name (repeatable)', collect)
      .addHelpText('after', examples('svc emulator', 'svc emulator --port 0', 'svc emulator --state ~/.svc-emulator.jsonl', 'svc emulator --state s.jsonl --export fixture.json')),
    'emulator',
    () => import('../commands/emulator/start.js'),
  );

  return program;
}
