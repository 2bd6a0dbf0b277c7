// Whether a browser svc opens would reach the person at this terminal: one rule for
// `svc login` and `svc emulator --open`, so both say the same and neither opens a browser
// nobody sees (docs/design.md: SSH, no display).

/**
 * Why a browser opened here would not reach the person, or null when it would. A BROWSER
 * the user set is used without a display: it may be a text browser, or a command that
 * reaches a browser elsewhere.
 */
export function browserUnreachable(env: Readonly<Record<string, string | undefined>>, platform: string): string | null {
  if (env.SSH_TTY || env.SSH_CONNECTION) return 'this is an SSH session';
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY && !env.BROWSER?.trim()) return 'neither DISPLAY nor WAYLAND_DISPLAY is set';
  return null;
}
