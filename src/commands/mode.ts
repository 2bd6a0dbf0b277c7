// `svc mode [test|live]`: shows the mode commands use (and why), or sets the profile's default.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import type { Mode } from '../contract/constants.js';
import { chooseModeOf, chooseProfileName, keyForMode, namedProfile, parseModeValue, requireProfile } from '../credentials/resolve.js';
import { modeOfKey } from '../contract/constants.js';
import { objectResult, textResult, type CommandResult } from '../kit/result.js';

export interface ModeOptions {
  set?: Mode;
}

export const command = defineCommand({
  summary: "show or set the profile's default mode",
  args: [{ name: 'mode', help: 'test or live', choices: ['test', 'live'] }],
  examples: ['svc mode', 'svc mode live'],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): ModeOptions {
  return args[0] === undefined ? {} : { set: parseModeValue(args[0], 'MODE') };
}

export async function run(opts: ModeOptions, ctx: Context): Promise<CommandResult> {
  const config = await ctx.config.read();
  const profileName = chooseProfileName(ctx, config);
  const explicit = namedProfile(ctx) !== undefined;

  if (opts.set) {
    const mode = opts.set;
    if (explicit || Object.keys(config.profiles).length > 0) requireProfile(config, profileName);
    await ctx.config.update((cfg) => {
      const profile = (cfg.profiles[profileName] ??= {});
      profile.mode = mode;
      // Now a choice: a live mode set here lets billable commands run without a terminal.
      delete profile.mode_implied;
      cfg.default_profile ??= profileName;
    });
    const profile = config.profiles[profileName];
    const usable = mode === 'test' ? keyForMode(profile, 'test') : (profile?.oauth ?? keyForMode(profile, 'live'));
    const notes = [
      ...(usable
        ? []
        : [
            `note: profile "${profileName}" has no ${mode} credential yet: ` +
              (mode === 'test' ? `run \`svc keys add --profile ${profileName}\` with a svc_test_ key` : `run \`svc login --profile ${profileName}\``),
          ]),
      ...(ctx.env.SVC_MODE || ctx.env.SVC_API_KEY
        ? [`note: ${ctx.env.SVC_API_KEY ? 'SVC_API_KEY' : 'SVC_MODE'} is set and takes precedence over the profile's mode`]
        : []),
    ];
    return textResult({ profile: profileName, mode }, `Profile "${profileName}" now uses ${mode} mode by default.`, {
      after: notes.length ? notes.join('\n') : undefined,
    });
  }

  if (explicit) requireProfile(config, profileName);
  const profile = config.profiles[profileName];
  const envKeyMode = ctx.env.SVC_API_KEY ? modeOfKey(ctx.env.SVC_API_KEY) : null;
  const choice = envKeyMode ? { mode: envKeyMode, why: 'SVC_API_KEY', chosen: true } : chooseModeOf(ctx, profile);
  const { mode, why: source } = choice;
  const value = { profile: profileName, mode, source, chosen: choice.chosen, profile_mode: profile?.mode ?? null };
  // Piped, the mode alone: `[ "$(svc mode)" = live ]`.
  if (!ctx.io.stdout.isTTY) return textResult(value, mode);
  return objectResult(value, [
    ['mode', mode],
    ['from', source],
    ['profile', profileName],
  ]);
}

export default commandModule({ command, parse, run });
