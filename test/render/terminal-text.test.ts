import { describe, expect, it } from 'vitest';
import { stripControl, stripControlToLine, terminalJson } from '../../src/render/terminal-text.js';

describe('text for a terminal carries no control characters', () => {
  it('drops C0 controls (ESC, BEL, CR, backspace), DEL and C1 controls, and keeps tabs, newlines and other text', () => {
    const text = '\x1b]0;title\x07\x1b[31mred\x1b[0m\r\bback\x7f\x9b2J\tand\nnext ✓ é 日本';
    expect(stripControl(text)).toBe(']0;title[31mred[0mback2J\tand\nnext ✓ é 日本');
    expect(stripControl('plain text\n')).toBe('plain text\n');
  });

  it('as one line, also folds newlines and tabs into single spaces', () => {
    expect(stripControlToLine(' a\x1b[2J\n\tb  c\n')).toBe('a[2J b c');
  });

  it('as JSON, escapes DEL and the C1 controls too (JSON leaves them raw), and reads back as the same data', () => {
    const value = { summary: '\x1b[31m\x7f\x9b2J\u00a0ok' };
    const json = terminalJson(value);
    expect(json).toBe('{\n  "summary": "\\u001b[31m\\u007f\\u009b2J\u00a0ok"\n}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
