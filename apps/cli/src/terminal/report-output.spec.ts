import { describe, expect, it } from 'vitest';
import { markdownForTerminal } from './markdown-for-terminal';
import { reportForStdout } from './report-output';

// Markdown as the report writes it: escaped prose, a fenced code block a paragraph quotes, a table, sources.
const REPORT = [
  '# How do I start a widget?',
  '',
  'Run it with \\*care\\*: the server binds to 127.0.0.1 &amp; port 3000 &gt; 1024. [1]',
  '',
  '## Install',
  '',
  'Install it:',
  '',
  '```sh',
  'npm install widget',
  '',
  'npx widget --port 3000 --a-very-long-flag-that-would-be-wrapped-if-code-were-prose --and-another-one-to-be-sure',
  '```',
  '',
  '[2]',
  '',
  '## Coverage',
  '',
  '| subtopic | evidence | status |',
  '| --- | --- | --- |',
  '| Install | 2 | covered |',
  '',
  '## Sources',
  '',
  '1. widget/README.md &gt; Usage (widget/README.md\\#1)',
  '2. widget/README.md &gt; Install (widget/README.md\\#2) <https://widget.test/install>',
  '',
].join('\n');

describe('the report on a terminal', () => {
  const out = markdownForTerminal(REPORT, { width: 80, color: false });

  it('shows no Markdown escapes or entities', () => {
    expect(out).toContain('Run it with *care*: the server binds to 127.0.0.1 & port 3000 > 1024. [1]');
    expect(out).toContain('widget/README.md > Install (widget/README.md#2)');
    expect(out).not.toMatch(/\\[*#_`]|&gt;|&amp;|```/);
  });

  it('shows a code block as an indented block, line by line, never wrapped', () => {
    const lines = out.split('\n');
    const at = lines.indexOf('    npm install widget');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('');
    expect(lines[at + 2]).toBe('    npx widget --port 3000 --a-very-long-flag-that-would-be-wrapped-if-code-were-prose --and-another-one-to-be-sure');
  });

  it('lays out headings, numbered sources, tables and links', () => {
    expect(out.startsWith('How do I start a widget?\n')).toBe(true);
    expect(out).toContain('1. widget/README.md > Usage');
    expect(out).toMatch(/subtopic +evidence +status\n─+ +─+ +─+\nInstall +2 +covered/);
    expect(out).toContain('(widget/README.md#2) https://widget.test/install');
  });

  it('wraps prose at the width and styles with colour unless told not to', () => {
    const narrow = markdownForTerminal('A sentence of several words that is long enough to wrap at forty columns wide.', { width: 40, color: false });
    for (const l of narrow.trimEnd().split('\n')) expect(l.length).toBeLessThanOrEqual(40);
    expect(markdownForTerminal('# Title', { width: 80, color: true })).toMatch(/\u001b\[1m/);
  });
});

describe('reportForStdout', () => {
  it('lays the report out on a terminal and prints the Markdown itself to a pipe or file', () => {
    expect(reportForStdout(REPORT, { isTTY: true, columns: 100 }, { NO_COLOR: '1' })).toBe(markdownForTerminal(REPORT, { width: 100, color: false }));
    expect(reportForStdout(REPORT, { isTTY: false }, {})).toBe(REPORT);
    expect(reportForStdout(REPORT, {}, {})).toBe(REPORT);
  });

  it('strips terminal escapes from the run\'s text either way', () => {
    const hostile = '# T\u001b]0;owned\u0007itle\n\nText \u001b[2Jhere.\n';
    for (const tty of [true, false]) expect(reportForStdout(hostile, { isTTY: tty, columns: 80 }, { NO_COLOR: '1' })).not.toMatch(/\u001b|\u0007/);
  });
});
