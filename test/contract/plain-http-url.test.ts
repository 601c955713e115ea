import { describe, expect, it } from 'vitest';
import { isPlainHttpUrl } from '../../src/contract/plain-http-url.js';

describe('isPlainHttpUrl', () => {
  it('takes an http(s) URL with no credential', () => {
    expect(isPlainHttpUrl('https://ci.test/batch/report.html')).toBe(true);
    expect(isPlainHttpUrl('http://127.0.0.1:8080/r')).toBe(true);
  });

  it('refuses another scheme, a credential, what is no URL, and what is no text', () => {
    for (const value of [
      'file:///etc/passwd',
      'javascript:alert(1)',
      'https://user@ci.test/r',
      'https://user:secret@ci.test/r',
      'https://:secret@ci.test/r',
      'not a url',
      '',
      42,
      { toString: () => 'https://ci.test/r' },
      null,
      undefined,
    ])
      expect(isPlainHttpUrl(value), String(value)).toBe(false);
  });
});
