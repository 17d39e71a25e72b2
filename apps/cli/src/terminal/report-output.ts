import { markdownForTerminal } from './markdown-for-terminal';
import { forTerminal } from './terminal-text';

/**
 * The Markdown report as stdout takes it: laid out for reading when stdout is a terminal, the Markdown itself
 * otherwise (a file, a pipe). Either way the run's text first loses what could drive the terminal.
 */
export function reportForStdout(markdown: string, stdout: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): string {
  const text = forTerminal(markdown);
  if (!stdout.isTTY) return text;
  return markdownForTerminal(text, { width: stdout.columns || 80, color: !env.NO_COLOR && env.TERM !== 'dumb' });
}
