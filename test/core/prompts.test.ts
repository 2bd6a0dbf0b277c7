// y/N questions (issue 24): a question too long for the terminal's line has its first
// sentences printed above it, so inquirer's "(y/N)" stays on the question's line.
import { describe, expect, it } from 'vitest';
import { confirm, splitQuestion } from '../../src/io/interactive.js';

describe('splitQuestion', () => {
  it('leaves a question that fits, or one with a single sentence', () => {
    expect(splitQuestion('Starting a call: continue?', 80)).toBeNull();
    expect(splitQuestion('x'.repeat(100) + '?', 80)).toBeNull();
  });
  it('splits at the last sentence; dots inside addresses are not sentence ends', () => {
    const message = 'profile "w" is bound to http://127.0.0.1:4010; signing in at http://10.0.0.2 moves it there. Move it?';
    expect(splitQuestion(message, 80)).toEqual({
      context: 'profile "w" is bound to http://127.0.0.1:4010; signing in at http://10.0.0.2 moves it there.',
      question: 'Move it?',
    });
    expect(splitQuestion(message, 200)).toBeNull();
  });
});

describe('confirm', () => {
  it('prints the context on stderr and asks the question alone', async () => {
    let stderr = '';
    const asked: string[] = [];
    const answer = await confirm(
      {
        io: { canPrompt: () => true, stderr: { write: (text: string) => void (stderr += text), isTTY: true, columns: 60 } },
        signal: new AbortController().signal,
        globals: { yes: false },
        prompter: { password: async () => '', confirm: async (message) => (asked.push(message), true) },
      },
      'logging out revokes the connection, which also ends the sign-in of profile "ops". Log out anyway?',
    );
    expect(answer).toBe(true);
    expect(asked).toEqual(['Log out anyway?']);
    expect(stderr).toBe('logging out revokes the connection, which also ends the sign-in of profile "ops".\n');
  });
});
