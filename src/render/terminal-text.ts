// Text for a terminal. What an agent wrote (a summary, its stderr) or a database holds (worker ids, host names,
// errors) is data: printed raw, its escape sequences would retitle the window, recolour or clear the screen, or
// rewrite what ralph printed before. ralph's own lines keep their colours; these helpers clean the values in them.

/** True for a C0 control but tab and newline, DEL, and the C1 controls (U+0080–U+009F; U+009B is a one-character CSI). */
const isControl = (code: number): boolean =>
  (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f);

/** `text` without control characters, tabs and newlines kept: a multi-line text (a report, an agent's output). */
export function stripControl(text: string): string {
  let kept = '';
  let from = 0;
  for (let at = 0; at < text.length; at += 1) {
    if (!isControl(text.charCodeAt(at))) continue;
    kept += text.slice(from, at);
    from = at + 1;
  }
  return from === 0 ? text : kept + text.slice(from);
}

/** `text` as one line: control characters removed, every run of white space (newlines too) one space. */
export function stripControlToLine(text: string): string {
  return stripControl(text).replace(/\s+/g, ' ').trim();
}

/**
 * `value` as indented JSON for a terminal: JSON escapes the C0 controls but not DEL and the C1 controls, so those are
 * written as `\u007f`…`\u009f` escapes too. The JSON reads back as the same data.
 */
export function terminalJson(value: unknown): string {
  const json = JSON.stringify(value, null, 2);
  let out = '';
  let from = 0;
  for (let at = 0; at < json.length; at += 1) {
    const code = json.charCodeAt(at);
    if (code < 0x7f || code > 0x9f) continue;
    out += `${json.slice(from, at)}\\u00${code.toString(16)}`;
    from = at + 1;
  }
  return from === 0 ? json : out + json.slice(from);
}
